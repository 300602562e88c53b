import { pgTable, bigint, boolean, doublePrecision, text } from 'drizzle-orm/pg-core'

// PostgreSQL twin of db/schema/settings.ts (what each column means is written there); tests/postgres/schema-parity.test.ts keeps the two equal.
export const settings = pgTable('settings', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  quarantineEnabled: boolean('quarantine_enabled').notNull().default(true),
  operatorKeyHash: text('operator_key_hash'),
  mcpAnonymousProfile: text('mcp_anonymous_profile'),
  activityRetentionDays: bigint('activity_retention_days', { mode: 'number' }).default(90),
  callApprovalWaitMs: bigint('call_approval_wait_ms', { mode: 'number' }).notNull().default(60_000),
  maxDescriptionOverlap: doublePrecision('max_description_overlap'),
  agentRequestsPerSecond: bigint('agent_requests_per_second', { mode: 'number' }).default(5_000),
  agentRecordedMibPerHour: bigint('agent_recorded_mib_per_hour', { mode: 'number' }).default(64),
  breakGlassKey: boolean('break_glass_key').notNull().default(true),
  twoPersonRule: text('two_person_rule').notNull().default('off'),
  localAccounts: boolean('local_accounts').notNull().default(true),
})

export const operatorSessions = pgTable('operator_sessions', {
  idHash: text('id_hash').primaryKey(),
  keyHash: text('key_hash'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  lastSeenAt: bigint('last_seen_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  userAgent: text('user_agent'),
  address: text('address'),
  operatorId: text('operator_id'),
  auth: text('auth'),
})

export const runtimeLease = pgTable('runtime_lease', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  instance: text('instance').notNull(),
  pid: bigint('pid', { mode: 'number' }).notNull(),
  host: text('host'),
  startedAt: bigint('started_at', { mode: 'number' }).notNull(),
  heartbeatAt: bigint('heartbeat_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    url: text('url'),
})
