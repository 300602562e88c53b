ALTER TABLE `operators` ADD `oidc_subject` text;--> statement-breakpoint
CREATE UNIQUE INDEX `operators_oidc_subject_unique` ON `operators` (`oidc_subject`);