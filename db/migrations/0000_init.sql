CREATE TABLE `settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`quarantine_enabled` integer DEFAULT true NOT NULL,
	`operator_key_hash` text
);
--> statement-breakpoint
CREATE TABLE `server_connections` (
	`server_name` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`detail` text,
	`action` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`server_name`) REFERENCES `servers`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `servers` (
	`name` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`quarantined` integer DEFAULT false NOT NULL,
	`trust` text DEFAULT 'manual' NOT NULL,
	`disabled_tools` text DEFAULT '[]' NOT NULL,
	`enabled_tools` text,
	`transport` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tool_approvals` (
	`server_name` text NOT NULL,
	`tool_name` text NOT NULL,
	`status` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`previous` text,
	`decided_by` text,
	`decided_at` integer,
	PRIMARY KEY(`server_name`, `tool_name`),
	FOREIGN KEY (`server_name`,`tool_name`) REFERENCES `tools`(`server_name`,`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `tools` (
	`server_name` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`input_schema` text NOT NULL,
	`output_schema` text,
	`annotations` text,
	`hash` text,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`server_name`, `name`),
	FOREIGN KEY (`server_name`) REFERENCES `servers`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `agent_tokens` (
	`name` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`allowed_servers` text NOT NULL,
	`profile_pin` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_token_hash_unique` ON `agent_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `profiles` (
	`name` text PRIMARY KEY NOT NULL,
	`servers` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `activity` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`request_id` text NOT NULL,
	`at` integer NOT NULL,
	`type` text NOT NULL,
	`surface` text,
	`actor` text NOT NULL,
	`tier` text,
	`verdict` text,
	`server` text,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `activity_request_id` ON `activity` (`request_id`,`id`);--> statement-breakpoint
CREATE INDEX `activity_type` ON `activity` (`type`,`id`);--> statement-breakpoint
CREATE INDEX `activity_verdict` ON `activity` (`verdict`,`id`);--> statement-breakpoint
CREATE INDEX `activity_server` ON `activity` (`server`,`id`);--> statement-breakpoint
CREATE INDEX `activity_at` ON `activity` (`at`);