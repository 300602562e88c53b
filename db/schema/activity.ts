import { sqliteTable, integer, text, index, primaryKey } from 'drizzle-orm/sqlite-core'

/** The activity log: every check on every surface and every operator action. */
export const activity = sqliteTable(
  'activity',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    requestId: text('request_id').notNull(),
    at: integer('at').notNull(), // epoch ms
    type: text('type').notNull(), // closed vocabulary: lib/core/activity.ts
    surface: text('surface'),
    actor: text('actor').notNull(), // "operator", "token:<name>", "cli:<user>", "runtime"
    tier: text('tier'),
    verdict: text('verdict'),
    server: text('server'),
    // the operator account behind a person's record, and how they were authenticated
    // (session | token | break-glass); null for agents, the runtime and the local CLI
    operatorId: text('operator_id'),
    auth: text('auth'),
    // type-specific body: per-tool verdicts, before/after, ...
    data: text('data', { mode: 'json' }).$type<object>().notNull(),
    // the tamper-evident chain (lib/core/activity-chain.ts): the record before's hash, and this one's
    // over it and every column above; null on records written before the chain began
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

export type ActivityRow = typeof activity.$inferSelect
export type NewActivityRow = typeof activity.$inferInsert

/**
 * Every server a record concerns (a check names several), so "activity of server X" finds
 * checks too, newest first straight from the (server, activity_id) key.
 */
export const activityServers = sqliteTable(
  'activity_servers',
  {
    server: text('server').notNull(),
    activityId: integer('activity_id').notNull().references(() => activity.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.server, t.activityId] }),
    // how a pruned record's rows are found (the cascade): without it, every deleted record scanned
    // the whole table, and one prune batch at a million records held the write lock for minutes
    index('activity_servers_activity').on(t.activityId),
  ],
)

/**
 * How far activity_servers is filled (one row, id = 1). It is derived data, filled in batches
 * off the request path (lib/activity/server-index.ts), so a record's commit is that record alone;
 * readers cover the few records past `serversThrough` themselves.
 */
export const activityIndex = sqliteTable('activity_index', {
  id: integer('id').primaryKey(),
  serversThrough: integer('servers_through').notNull().default(0),
})

/**
 * Checks per minute, by class, surface and actor: what the Activity chart counts, so a day of
 * a million checks is a few thousand rows to add up. `verdict` is a class the check holds (its set
 * verdict, or a refused tool's class: db/queries/activity-index.ts checkClasses), so a check counts
 * once under each of its classes. Derived like activity_servers, in the same batches and under the
 * same watermark; pruning takes its records' counts back out. A null verdict or surface is stored as ''.
 */
export const activityCheckMinutes = sqliteTable(
  'activity_check_minutes',
  {
    minute: integer('minute').notNull(), // epoch ms of the minute's start
    verdict: text('verdict').notNull(),
    surface: text('surface').notNull(),
    actor: text('actor').notNull(),
    checks: integer('checks').notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.verdict, t.surface, t.actor] })],
)

/**
 * Tool calls per minute (of their tool.call record), by outcome, surface and actor: the chart's
 * calls row, kept like activity_check_minutes. `outcome` is the call's as far as the watermark
 * reaches ('' while none is recorded there); an outcome record the indexer reaches later moves
 * its call from '' to its outcome. Pruning takes its records' counts back out.
 */
export const activityCallMinutes = sqliteTable(
  'activity_call_minutes',
  {
    minute: integer('minute').notNull(), // epoch ms of the minute's start
    outcome: text('outcome').notNull(),
    surface: text('surface').notNull(),
    actor: text('actor').notNull(),
    calls: integer('calls').notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.outcome, t.surface, t.actor] })],
)
