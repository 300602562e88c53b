-- Twin of db/migrations/0026_call_minutes.sql: the tool calls per minute and outcome, counted for what is indexed so far.
CREATE TABLE "activity_call_minutes" (
	"minute" bigint NOT NULL,
	"outcome" text NOT NULL,
	"surface" text NOT NULL,
	"actor" text NOT NULL,
	"calls" bigint NOT NULL,
	CONSTRAINT "activity_call_minutes_minute_outcome_surface_actor_pk" PRIMARY KEY("minute","outcome","surface","actor")
);
--> statement-breakpoint
INSERT INTO "activity_call_minutes" ("minute", "outcome", "surface", "actor", "calls")
SELECT (c."at" / 60000) * 60000,
  coalesce(c."data" ->> 'outcome', (SELECT o."data" ->> 'outcome' FROM "activity" o
    WHERE o."request_id" = c."request_id" AND o."type" = 'tool.call_outcome' AND (o."data" ->> 'call')::bigint = c."id"
      AND o."id" <= coalesce((SELECT "servers_through" FROM "activity_index" WHERE "id" = 1), 0) LIMIT 1), ''),
  coalesce(c."surface", ''), c."actor", count(*)
FROM "activity" c
WHERE c."type" = 'tool.call' AND c."id" <= coalesce((SELECT "servers_through" FROM "activity_index" WHERE "id" = 1), 0)
GROUP BY 1, 2, 3, 4;
