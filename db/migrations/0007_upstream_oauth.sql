ALTER TABLE `server_oauth` ADD `grant` text DEFAULT 'authorization_code' NOT NULL;--> statement-breakpoint
ALTER TABLE `server_oauth` ADD `pre_registered` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `server_oauth` ADD `client_metadata_url` text;--> statement-breakpoint
ALTER TABLE `server_oauth` ADD `private_key_pem` text;--> statement-breakpoint
ALTER TABLE `server_oauth` ADD `signing_algorithm` text;--> statement-breakpoint
ALTER TABLE `server_oauth` ADD `discovery` text;--> statement-breakpoint
ALTER TABLE `server_oauth` ADD `challenged_scope` text;