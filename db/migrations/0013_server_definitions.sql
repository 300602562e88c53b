CREATE TABLE `server_definitions` (
	`server_name` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`definition` text NOT NULL,
	`hash` text NOT NULL,
	`status` text,
	`approved` text,
	`approved_hash` text,
	`decided_by` text,
	`decided_at` integer,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`gone_at` integer,
	PRIMARY KEY(`server_name`, `kind`, `key`),
	FOREIGN KEY (`server_name`) REFERENCES `servers`(`name`) ON UPDATE no action ON DELETE cascade
);
