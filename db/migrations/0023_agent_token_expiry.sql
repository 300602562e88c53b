ALTER TABLE `agent_tokens` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `agent_tokens` ADD `last_used_at` integer;