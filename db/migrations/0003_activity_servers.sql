CREATE TABLE `activity_servers` (
	`server` text NOT NULL,
	`activity_id` integer NOT NULL,
	PRIMARY KEY(`server`, `activity_id`),
	FOREIGN KEY (`activity_id`) REFERENCES `activity`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT OR IGNORE INTO `activity_servers` (`server`, `activity_id`) SELECT `server`, `id` FROM `activity` WHERE `server` IS NOT NULL;--> statement-breakpoint
INSERT OR IGNORE INTO `activity_servers` (`server`, `activity_id`)
  SELECT substr(json_extract(t.value, '$.id'), 1, instr(json_extract(t.value, '$.id'), ':') - 1), a.`id`
  FROM `activity` a, json_each(a.`data`, '$.tools') t
  WHERE a.`type` = 'preflight' AND instr(json_extract(t.value, '$.id'), ':') > 1;
