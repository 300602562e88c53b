DROP INDEX `call_approvals_identity`;--> statement-breakpoint
ALTER TABLE `call_approvals` ADD `caller_id` text;--> statement-breakpoint
CREATE INDEX `call_approvals_identity` ON `call_approvals` (`caller_id`,`server_name`,`tool_name`,`arguments_hash`);--> statement-breakpoint
-- every existing token gets its id; a held call made before has none (who made it is not known
-- by id), so no retry joins it and it runs for no one: it expires
ALTER TABLE `agent_tokens` ADD `id` text NOT NULL DEFAULT '';--> statement-breakpoint
UPDATE `agent_tokens` SET `id` = 'tok_' || lower(hex(randomblob(12)));--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_id_unique` ON `agent_tokens` (`id`);
