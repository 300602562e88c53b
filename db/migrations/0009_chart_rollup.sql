CREATE TABLE `activity_check_minutes` (
	`minute` integer NOT NULL,
	`verdict` text NOT NULL,
	`surface` text NOT NULL,
	`actor` text NOT NULL,
	`checks` integer NOT NULL,
	PRIMARY KEY(`minute`, `verdict`, `surface`, `actor`)
);
--> statement-breakpoint
-- the checks already derived (through the watermark) are counted now; the rest follow in batches
INSERT INTO `activity_check_minutes` (`minute`, `verdict`, `surface`, `actor`, `checks`)
SELECT (`at` / 60000) * 60000, coalesce(`verdict`, ''), coalesce(`surface`, ''), `actor`, count(*) FROM `activity`
WHERE `type` = 'preflight' AND `id` <= coalesce((SELECT `servers_through` FROM `activity_index` WHERE `id` = 1), 0)
GROUP BY 1, 2, 3, 4;
