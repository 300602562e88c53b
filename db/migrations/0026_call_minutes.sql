CREATE TABLE `activity_call_minutes` (
	`minute` integer NOT NULL,
	`outcome` text NOT NULL,
	`surface` text NOT NULL,
	`actor` text NOT NULL,
	`calls` integer NOT NULL,
	PRIMARY KEY(`minute`, `outcome`, `surface`, `actor`)
);
--> statement-breakpoint
-- the calls indexed so far, each under its outcome as far as the watermark reaches (db/queries/activity-index.ts; the + keeps
-- the planner on the request-id index); the rest follow in batches
INSERT INTO `activity_call_minutes` (`minute`, `outcome`, `surface`, `actor`, `calls`)
SELECT (c.`at` / 60000) * 60000,
  coalesce(json_extract(c.`data`, '$.outcome'), (SELECT json_extract(o.`data`, '$.outcome') FROM `activity` o
    WHERE o.`request_id` = c.`request_id` AND +o.`type` = 'tool.call_outcome' AND json_extract(o.`data`, '$.call') = c.`id`
      AND o.`id` <= coalesce((SELECT `servers_through` FROM `activity_index` WHERE `id` = 1), 0) LIMIT 1), ''),
  coalesce(c.`surface`, ''), c.`actor`, count(*)
FROM `activity` c
WHERE c.`type` = 'tool.call' AND c.`id` <= coalesce((SELECT `servers_through` FROM `activity_index` WHERE `id` = 1), 0)
GROUP BY 1, 2, 3, 4;
