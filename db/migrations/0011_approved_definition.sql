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
