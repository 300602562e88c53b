CREATE TABLE `operator_invitations` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `operators` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`role` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`password_hash` text,
	`source` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operators_username_unique` ON `operators` (`username`);--> statement-breakpoint
CREATE UNIQUE INDEX `operators_email_unique` ON `operators` (`email`);--> statement-breakpoint
CREATE TABLE `pending_approvals` (
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`subject` text NOT NULL,
	`operator_id` text NOT NULL,
	`actor` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`kind`, `target`)
);
--> statement-breakpoint
CREATE TABLE `personal_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_used_at` integer,
	`uses` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `personal_tokens_token_hash_unique` ON `personal_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `personal_tokens_operator` ON `personal_tokens` (`operator_id`);--> statement-breakpoint
ALTER TABLE `operator_sessions` ADD `operator_id` text;--> statement-breakpoint
ALTER TABLE `operator_sessions` ADD `auth` text;--> statement-breakpoint
ALTER TABLE `settings` ADD `break_glass_key` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `settings` ADD `two_person_rule` text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE `activity` ADD `operator_id` text;--> statement-breakpoint
ALTER TABLE `activity` ADD `auth` text;