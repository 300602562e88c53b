CREATE TABLE `upstream_sessions` (
	`server_name` text NOT NULL,
	`token_id` text NOT NULL,
	`state` text NOT NULL,
	`detail` text,
	`action` text,
	`runtime_instance` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`server_name`, `token_id`),
	FOREIGN KEY (`server_name`) REFERENCES `servers`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `servers` ADD `isolation` text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE `servers` ADD `session_state` integer;