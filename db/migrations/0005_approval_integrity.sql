CREATE TABLE `call_approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`server_name` text NOT NULL,
	`tool_name` text NOT NULL,
	`arguments` text NOT NULL,
	`arguments_hash` text NOT NULL,
	`caller` text NOT NULL,
	`request_id` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`decided_by` text,
	`decided_at` integer,
	`result` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `call_approvals_status` ON `call_approvals` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `call_approvals_identity` ON `call_approvals` (`caller`,`server_name`,`tool_name`,`arguments_hash`);--> statement-breakpoint
ALTER TABLE `settings` ADD `call_approval_wait_ms` integer DEFAULT 60000 NOT NULL;--> statement-breakpoint
ALTER TABLE `servers` ADD `call_approval_tools` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `servers` ADD `inspect_requested_at` integer;--> statement-breakpoint
ALTER TABLE `servers` ADD `inspected_at` integer;--> statement-breakpoint
ALTER TABLE `tools` ADD `title` text;--> statement-breakpoint
ALTER TABLE `tools` ADD `execution` text;--> statement-breakpoint
ALTER TABLE `tools` ADD `icons` text;--> statement-breakpoint
ALTER TABLE `tools` ADD `meta` text;