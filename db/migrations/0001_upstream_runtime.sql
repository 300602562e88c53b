CREATE TABLE `server_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`server_name` text NOT NULL,
	`at` integer NOT NULL,
	`stream` text NOT NULL,
	`line` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `server_logs_server` ON `server_logs` (`server_name`,`id`);--> statement-breakpoint
CREATE TABLE `server_oauth` (
	`server_name` text PRIMARY KEY NOT NULL,
	`client_information` text,
	`tokens` text,
	`tokens_saved_at` integer,
	`code_verifier` text,
	`state` text,
	`redirect_url` text,
	`return_to` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`server_name`) REFERENCES `servers`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `server_secrets` (
	`server_name` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`server_name`, `name`),
	FOREIGN KEY (`server_name`) REFERENCES `servers`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `servers` ADD `baseline_at` integer;--> statement-breakpoint
ALTER TABLE `servers` ADD `restart_requested_at` integer;--> statement-breakpoint
ALTER TABLE `tool_approvals` ADD `approved_hash` text;--> statement-breakpoint
ALTER TABLE `tools` ADD `gone_at` integer;