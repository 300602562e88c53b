ALTER TABLE `server_connections` ADD `protocol_version` text;--> statement-breakpoint
ALTER TABLE `servers` ADD `sampling` text DEFAULT 'relay' NOT NULL;