ALTER TABLE `call_approvals` ADD `caller_id` text;--> statement-breakpoint
ALTER TABLE `agent_tokens` ADD `id` text NOT NULL DEFAULT '';--> statement-breakpoint
UPDATE `agent_tokens` SET `id` = 'tok_' || lower(hex(randomblob(12)));--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_id_unique` ON `agent_tokens` (`id`);
