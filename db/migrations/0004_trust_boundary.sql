CREATE TABLE `operator_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`user_agent` text,
	`address` text
);
--> statement-breakpoint
CREATE TABLE `runtime_lease` (
	`id` integer PRIMARY KEY NOT NULL,
	`instance` text NOT NULL,
	`pid` integer NOT NULL,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `settings` ADD `mcp_anonymous_profile` text;--> statement-breakpoint
ALTER TABLE `settings` ADD `activity_retention_days` integer DEFAULT 90;--> statement-breakpoint
ALTER TABLE `server_connections` ADD `runtime_instance` text;--> statement-breakpoint
INSERT OR IGNORE INTO `settings` (`id`) VALUES (1);
