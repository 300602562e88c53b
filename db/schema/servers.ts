import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core'

export type Transport =
  | { command: string; args?: string[]; env?: Record<string, string> }
  | { url: string; headers?: Record<string, string> }

/** Desired (admin) state of an upstream server, as the operator configured it. */
export const servers = sqliteTable('servers', {
  name: text('name').primaryKey(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
  quarantined: integer('quarantined', { mode: 'boolean' }).notNull().default(false),
  trust: text('trust', { enum: ['manual', 'auto'] }).notNull().default('manual'),
  disabledTools: text('disabled_tools', { mode: 'json' }).$type<string[]>().notNull().default([]),
  // null = every tool allowed; an array = allowlist
  enabledTools: text('enabled_tools', { mode: 'json' }).$type<string[] | null>(),
  transport: text('transport', { mode: 'json' }).$type<Transport | null>(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

export const connectionStates = [
  'ready', 'connecting', 'discovering', 'authenticating', 'pending_auth', 'error', 'disconnected',
] as const
export type ConnectionState = (typeof connectionStates)[number]

export const connectionActions = ['restart', 'login', 'view_logs', 'set_secret'] as const
export type ConnectionAction = (typeof connectionActions)[number]

/** Connection state published by the runtime (or a state file). No row = nothing published yet. */
export const serverConnections = sqliteTable('server_connections', {
  serverName: text('server_name').primaryKey().references(() => servers.name, { onDelete: 'cascade' }),
  state: text('state', { enum: connectionStates }).notNull(),
  detail: text('detail'),
  action: text('action', { enum: connectionActions }),
  updatedAt: integer('updated_at').notNull(),
})

export type Server = typeof servers.$inferSelect
export type ServerConnection = typeof serverConnections.$inferSelect
