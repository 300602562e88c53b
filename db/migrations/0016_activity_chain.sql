ALTER TABLE `activity` ADD `prev_hash` text;--> statement-breakpoint
ALTER TABLE `activity` ADD `hash` text;