-- approved_definition
-- tool_approvals.previous becomes `approved`: every approval keeps its approved definition now
-- (lib/approvals/pin-upgrade.ts fills it in for approvals made before). The table is rebuilt so
-- that this, its one large column, comes last: the evaluator's reads of status and approved_hash
-- then never step over it.
CREATE TABLE `__new_tool_approvals` (
	`server_name` text NOT NULL,
	`tool_name` text NOT NULL,
	`status` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`approved_hash` text,
	`decided_by` text,
	`decided_at` integer,
	`approved` text,
	PRIMARY KEY(`server_name`, `tool_name`),
	FOREIGN KEY (`server_name`,`tool_name`) REFERENCES `tools`(`server_name`,`name`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
INSERT INTO `__new_tool_approvals` (`server_name`, `tool_name`, `status`, `disabled`, `approved_hash`, `decided_by`, `decided_at`, `approved`)
	SELECT `server_name`, `tool_name`, `status`, `disabled`, `approved_hash`, `decided_by`, `decided_at`, `previous` FROM `tool_approvals`;--> statement-breakpoint
DROP TABLE `tool_approvals`;--> statement-breakpoint
ALTER TABLE `__new_tool_approvals` RENAME TO `tool_approvals`;

--> statement-breakpoint
-- held_call_pin
ALTER TABLE `call_approvals` ADD `pin` text;--> statement-breakpoint
ALTER TABLE `call_approvals` ADD `approved_pin` text;--> statement-breakpoint
ALTER TABLE `call_approvals` ADD `profile` text;
--> statement-breakpoint
-- server_definitions
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

--> statement-breakpoint
-- token_identity
DROP INDEX `call_approvals_identity`;--> statement-breakpoint
ALTER TABLE `call_approvals` ADD `caller_id` text;--> statement-breakpoint
CREATE INDEX `call_approvals_identity` ON `call_approvals` (`caller_id`,`server_name`,`tool_name`,`arguments_hash`);--> statement-breakpoint
-- every existing token gets its id; a held call made before has none (who made it is not known
-- by id), so no retry joins it and it runs for no one: it expires
ALTER TABLE `agent_tokens` ADD `id` text NOT NULL DEFAULT '';--> statement-breakpoint
UPDATE `agent_tokens` SET `id` = 'tok_' || lower(hex(randomblob(12)));--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_id_unique` ON `agent_tokens` (`id`);
