import { pgTable, bigint, json, text, index, primaryKey } from 'drizzle-orm/pg-core'

// PostgreSQL twin of db/schema/activity.ts (what each column means is written there); tests/postgres/schema-parity.test.ts keeps the two equal.
export const activity = pgTable(
  'activity',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    requestId: text('request_id').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    surface: text('surface'),
    actor: text('actor').notNull(),
    tier: text('tier'),
    verdict: text('verdict'),
    server: text('server'),
    operatorId: text('operator_id'),
    auth: text('auth'),
    data: json('data').$type<object>().notNull(),
    prevHash: text('prev_hash'),
    hash: text('hash'),
  },
  (t) => [
    index('activity_request_id').on(t.requestId, t.id),
    index('activity_type').on(t.type, t.id),
    index('activity_verdict').on(t.verdict, t.id),
    index('activity_server').on(t.server, t.id),
    index('activity_surface').on(t.surface, t.id),
    index('activity_actor').on(t.actor, t.id),
    index('activity_at').on(t.at),
  ],
)

export const activityServers = pgTable(
  'activity_servers',
  {
    server: text('server').notNull(),
    activityId: bigint('activity_id', { mode: 'number' }).notNull().references(() => activity.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.server, t.activityId] }),
    index('activity_servers_activity').on(t.activityId),
  ],
)

export const activityIndex = pgTable('activity_index', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  serversThrough: bigint('servers_through', { mode: 'number' }).notNull().default(0),
})

export const activityCheckMinutes = pgTable(
  'activity_check_minutes',
  {
    minute: bigint('minute', { mode: 'number' }).notNull(),
    verdict: text('verdict').notNull(),
    surface: text('surface').notNull(),
    actor: text('actor').notNull(),
    checks: bigint('checks', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.verdict, t.surface, t.actor] })],
)

export const activityCallMinutes = pgTable(
  'activity_call_minutes',
  {
    minute: bigint('minute', { mode: 'number' }).notNull(),
    outcome: text('outcome').notNull(),
    surface: text('surface').notNull(),
    actor: text('actor').notNull(),
    calls: bigint('calls', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.outcome, t.surface, t.actor] })],
)
