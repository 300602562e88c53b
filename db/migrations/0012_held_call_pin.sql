ALTER TABLE `call_approvals` ADD `pin` text;--> statement-breakpoint
ALTER TABLE `call_approvals` ADD `approved_pin` text;--> statement-breakpoint
ALTER TABLE `call_approvals` ADD `profile` text;