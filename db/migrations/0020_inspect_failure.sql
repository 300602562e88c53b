ALTER TABLE `servers` ADD `inspect_failed_at` integer;--> statement-breakpoint
ALTER TABLE `servers` ADD `inspect_error` text;