ALTER TABLE `settings` ADD `agent_requests_per_second` integer DEFAULT 5000;--> statement-breakpoint
ALTER TABLE `settings` ADD `agent_recorded_mib_per_hour` integer DEFAULT 64;