CREATE TABLE `activity_index` (
	`id` integer PRIMARY KEY NOT NULL,
	`servers_through` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE `servers` ADD `call_timeout_ms` integer DEFAULT 600000 NOT NULL;--> statement-breakpoint
ALTER TABLE `servers` ADD `roots` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- every record so far was indexed as it was written
INSERT INTO `activity_index` (`id`, `servers_through`) SELECT 1, coalesce(max(`id`), 0) FROM `activity`;
