CREATE TABLE `triage_acks` (
	`key` text PRIMARY KEY NOT NULL,
	`fingerprint` text NOT NULL,
	`until` integer,
	`actor` text NOT NULL,
	`at` integer NOT NULL
);
