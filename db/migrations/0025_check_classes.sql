-- The chart counts a check under each class it holds, its verdict and its refused tools' classes
-- (db/queries/activity-index.ts checkClasses): the minutes derived so far are counted again so, with
-- the reasons' classes of lib/preflight/taxonomy.ts (any other reason is blocked); the rest follow in batches.
DELETE FROM `activity_check_minutes`;
--> statement-breakpoint
INSERT INTO `activity_check_minutes` (`minute`, `verdict`, `surface`, `actor`, `checks`)
SELECT (`at` / 60000) * 60000, `class`, coalesce(`surface`, ''), `actor`, count(*) FROM (
  SELECT `id`, `at`, `surface`, `actor`, coalesce(`verdict`, '') AS `class` FROM `activity`
  WHERE `type` = 'preflight' AND `id` <= coalesce((SELECT `servers_through` FROM `activity_index` WHERE `id` = 1), 0)
  UNION
  SELECT a.`id`, a.`at`, a.`surface`, a.`actor`, CASE json_extract(t.value, '$.reason')
    WHEN 'not_found' THEN 'unknown_ids' WHEN 'server_not_configured' THEN 'unknown_ids'
    WHEN 'server_initializing' THEN 'degraded_retryable' WHEN 'server_unhealthy' THEN 'degraded_retryable' ELSE 'blocked' END
  FROM `activity` a, json_each(a.`data`, '$.tools') t
  WHERE a.`type` = 'preflight' AND a.`id` <= coalesce((SELECT `servers_through` FROM `activity_index` WHERE `id` = 1), 0)
    AND json_extract(t.value, '$.status') <> 'ready' AND json_extract(t.value, '$.reason') IS NOT NULL
) WHERE true GROUP BY 1, 2, 3, 4;
