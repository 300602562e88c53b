-- Twin of db/migrations/0025_check_classes.sql: the minutes derived so far counted again, a check under each class it holds.
DELETE FROM "activity_check_minutes";
--> statement-breakpoint
INSERT INTO "activity_check_minutes" ("minute", "verdict", "surface", "actor", "checks")
SELECT ("at" / 60000) * 60000, "class", coalesce("surface", ''), "actor", count(*) FROM (
  SELECT "id", "at", "surface", "actor", coalesce("verdict", '') AS "class" FROM "activity"
  WHERE "type" = 'preflight' AND "id" <= coalesce((SELECT "servers_through" FROM "activity_index" WHERE "id" = 1), 0)
  UNION
  SELECT a."id", a."at", a."surface", a."actor", CASE t.value ->> 'reason'
    WHEN 'not_found' THEN 'unknown_ids' WHEN 'server_not_configured' THEN 'unknown_ids'
    WHEN 'server_initializing' THEN 'degraded_retryable' WHEN 'server_unhealthy' THEN 'degraded_retryable' ELSE 'blocked' END
  FROM "activity" a, json_array_elements(a."data" -> 'tools') AS t(value)
  WHERE a."type" = 'preflight' AND a."id" <= coalesce((SELECT "servers_through" FROM "activity_index" WHERE "id" = 1), 0)
    AND t.value ->> 'status' <> 'ready' AND t.value ->> 'reason' IS NOT NULL
) AS c GROUP BY 1, 2, 3, 4;
