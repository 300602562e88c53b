import { sqliteTable, integer, real, text } from 'drizzle-orm/sqlite-core'

/** One row (id = 1): proxy-wide switches and the operator key's hash. Read it with db/queries/settings. */
export const settings = sqliteTable('settings', {
  id: integer('id').primaryKey(),
  quarantineEnabled: integer('quarantine_enabled', { mode: 'boolean' }).notNull().default(true),
  // sha256 hex of the operator API key; the key itself is never stored.
  operatorKeyHash: text('operator_key_hash'),
  // null = /mcp needs an agent token; a profile name = loopback callers without one get its scope
  mcpAnonymousProfile: text('mcp_anonymous_profile'),
  // activity records older than this many days are pruned; null keeps everything
  activityRetentionDays: integer('activity_retention_days').default(90),
  // how long a tools/call under call approval is held open waiting for a decision
  callApprovalWaitMs: integer('call_approval_wait_ms').notNull().default(60_000),
  // the description-overlap ceiling a scope may reach (0..1); null = report only
  maxDescriptionOverlap: real('max_description_overlap'),
  // per agent token (lib/limits): requests a second, and MiB of records an hour; null = no limit
  agentRequestsPerSecond: integer('agent_requests_per_second').default(5_000),
  agentRecordedMibPerHour: integer('agent_recorded_mib_per_hour').default(64),
  // false: the shared key no longer signs in (named operators only)
  breakGlassKey: integer('break_glass_key', { mode: 'boolean' }).notNull().default(true),
  // which approvals need two different approvers: off | destructive | all
  twoPersonRule: text('two_person_rule').notNull().default('off'),
  // false: passwords no longer sign in (single sign-on and the break-glass key do)
  localAccounts: integer('local_accounts', { mode: 'boolean' }).notNull().default(true),
})

export type Settings = typeof settings.$inferSelect

/**
 * Dashboard sign-ins. The cookie holds a random value and the browser's localStorage a second
 * one, the session key (sent as a header: another loopback port receives the cookie, never the
 * key); only their hashes are stored, so a database read does not yield a usable session.
 * Sign-out deletes the row: the cookie is refused at once.
 */
export const operatorSessions = sqliteTable('operator_sessions', {
  idHash: text('id_hash').primaryKey(),
  // null on sessions made before session keys existed: those are refused
  keyHash: text('key_hash'),
  createdAt: integer('created_at').notNull(),
  lastSeenAt: integer('last_seen_at').notNull(),
  expiresAt: integer('expires_at').notNull(), // absolute limit; inactivity ends it sooner
  userAgent: text('user_agent'),
  address: text('address'),
  // whose session (null: made before named operators, refused); how they signed in
  operatorId: text('operator_id'),
  auth: text('auth'), // password | break-glass | oidc
})

export type OperatorSession = typeof operatorSessions.$inferSelect

/**
 * The upstream runtime's lease: the process that owns the runtime renews it every few seconds.
 * A state the runtime published is only believed while the lease of the instance that published
 * it is fresh, and its holder, when a process of this machine, still runs: a killed server
 * never leaves `ready` behind for the CLI to read.
 */
export const runtimeLease = sqliteTable('runtime_lease', {
  id: integer('id').primaryKey(),
  instance: text('instance').notNull(),
  pid: integer('pid').notNull(),
  // the machine the holder runs on (null: written before hosts were kept, taken as this one)
  host: text('host'),
  startedAt: integer('started_at').notNull(),
  heartbeatAt: integer('heartbeat_at').notNull(),
  expiresAt: integer('expires_at').notNull(), // past this, the runtime is presumed gone
  /** where that toolgate answers: the CLI on the same database finds its server here */
  url: text('url'),
})
