import { sqliteTable, integer, text, primaryKey, index } from 'drizzle-orm/sqlite-core'

/**
 * How the runtime reaches an upstream. `secrets` names env vars (stdio) or headers (HTTP)
 * whose values come from `toolgate upstream set-secret`, never from the config itself.
 */
export type Transport = StdioTransport | HttpTransport
/** A server run as a local process, spoken to over its stdin and stdout. */
export type StdioTransport = { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; secrets?: string[] }
/** A server at a URL. type "sse": the 2024-11-05 HTTP+SSE transport; otherwise Streamable HTTP */
export type HttpTransport = { url: string; type?: 'sse'; headers?: Record<string, string>; secrets?: string[] }

/** Whether the server runs as a local process (stdio) rather than at a URL: the one test of a transport's kind. */
export const isStdio = (t: Transport): t is StdioTransport => 'command' in t

/**
 * The MCP revision toolgate speaks over a transport: Streamable HTTP negotiates it per connection
 * (2026-07-28 when the server offers it, else 2025-11-25); stdio and HTTP+SSE always speak
 * 2025-11-25 (lib/upstream/connection.ts says why).
 */
export type RevisionPlan = 'negotiated' | '2025-11-25'
/** Why a transport stays at 2025-11-25 (null: it negotiates). */
export const fixedRevisionBecause = (t: Transport): 'stdio' | 'sse' | null => (isStdio(t) ? 'stdio' : t.type === 'sse' ? 'sse' : null)
export const revisionPlan = (t: Transport): RevisionPlan => (fixedRevisionBecause(t) ? '2025-11-25' : 'negotiated')

/** A root the runtime declares to a server (MCP roots); none unless configured. */
export interface Root { uri: string; name?: string }

/** Desired (admin) state of an upstream server, as the operator configured it. */
export const servers = sqliteTable('servers', {
  name: text('name').primaryKey(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
  quarantined: integer('quarantined', { mode: 'boolean' }).notNull().default(false),
  trust: text('trust', { enum: trusts }).notNull().default('manual'),
  disabledTools: text('disabled_tools', { mode: 'json' }).$type<string[]>().notNull().default([]),
  // null = every tool allowed; an array = allowlist
  enabledTools: text('enabled_tools', { mode: 'json' }).$type<string[] | null>(),
  // tools whose every call waits for an operator's approval of that exact call
  callApprovalTools: text('call_approval_tools', { mode: 'json' }).$type<string[]>().notNull().default([]),
  transport: text('transport', { mode: 'json' }).$type<Transport | null>(),
  // how long one tools/call may run; progress from the upstream restarts the clock
  callTimeoutMs: integer('call_timeout_ms').notNull().default(600_000),
  // the roots declared to the server when it asks (roots/list)
  roots: text('roots', { mode: 'json' }).$type<Root[]>().notNull().default([]),
  // set once the runtime's first discovery approved the server's tools as the baseline
  baselineAt: integer('baseline_at'),
  // bumped by "restart"; the supervisor reconnects when it changes
  restartRequestedAt: integer('restart_requested_at'),
  // a quarantined server is inspected (connected, listed, never served) when asked; stdio only then
  inspectRequestedAt: integer('inspect_requested_at'),
  inspectedAt: integer('inspected_at'),
  // the last inspection that failed, and why (the page shows it instead of waiting for ever)
  inspectFailedAt: integer('inspect_failed_at'),
  inspectError: text('inspect_error'),
  // who shares one upstream session: every agent (shared), or each agent token its own (per_token);
  // auto: per_token on HTTP, and on stdio when the server declares session state
  isolation: text('isolation', { enum: isolations }).notNull().default('auto'),
  // whether the server declared session state (resource subscriptions, a changing resource list) when
  // the runtime last connected; null until it has
  sessionState: integer('session_state', { mode: 'boolean' }),
  // relay: a sampling request the server sends during a call goes to the caller's model; withhold:
  // refused unasked, and the sampling capability is not declared to the server
  sampling: text('sampling', { enum: samplingSettings }).notNull().default('relay'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

import { connectionActions, connectionStates, isolations, samplingSettings, trusts } from '../../lib/core/state'
export { connectionActions, connectionStates, type ConnectionAction, type ConnectionState } from '../../lib/core/state'

/** Connection state published by the runtime (or a state file). No row = nothing published yet. */
export const serverConnections = sqliteTable('server_connections', {
  serverName: text('server_name').primaryKey().references(() => servers.name, { onDelete: 'cascade' }),
  state: text('state', { enum: connectionStates }).notNull(),
  detail: text('detail'),
  action: text('action', { enum: connectionActions }),
  // the runtime instance that published this state; null = a state file (believed as written)
  runtimeInstance: text('runtime_instance'),
  // the MCP revision the ready connection speaks (an HTTP server's is negotiated); null while not ready
  protocolVersion: text('protocol_version'),
  updatedAt: integer('updated_at').notNull(),
})

/**
 * An agent token's own upstream session that is down (no row: up, or not started yet — it starts on
 * first use). Preflight reads it so a token whose session failed is not told `ready`.
 */
export const upstreamSessions = sqliteTable('upstream_sessions', {
  serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
  tokenId: text('token_id').notNull(),
  state: text('state', { enum: connectionStates }).notNull(),
  detail: text('detail'),
  action: text('action', { enum: connectionActions }),
  runtimeInstance: text('runtime_instance').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.serverName, t.tokenId] })])

export type Server = typeof servers.$inferSelect
export type ServerConnection = typeof serverConnections.$inferSelect

/** Secret values for a server's transport (env vars or headers). Stored encrypted (db/secrets.ts), never printed. */
export const serverSecrets = sqliteTable('server_secrets', {
  serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  value: text('value').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.serverName, t.name] })])

/**
 * OAuth state of an HTTP upstream: registered client, tokens, and the login in flight. The client
 * information (JSON), tokens (JSON), code verifier and private key are stored encrypted: read and
 * write them through db/secrets.ts (openOauth, sealOauth).
 */
export const serverOauth = sqliteTable('server_oauth', {
  serverName: text('server_name').primaryKey().references(() => servers.name, { onDelete: 'cascade' }),
  clientInformation: text('client_information'),
  tokens: text('tokens'),
  tokensSavedAt: integer('tokens_saved_at'),
  codeVerifier: text('code_verifier'),
  state: text('state'), // the pending login's OAuth state parameter
  redirectUrl: text('redirect_url'),
  returnTo: text('return_to'), // where the callback sends the browser afterwards
  // how toolgate gets tokens: an operator's login (authorization code), or by itself (client credentials)
  grant: text('grant', { enum: ['authorization_code', 'client_credentials'] }).notNull().default('authorization_code'),
  // a client the authorization server issued beforehand (kept through credential resets), or a client ID metadata document URL
  preRegistered: integer('pre_registered', { mode: 'boolean' }).notNull().default(false),
  clientMetadataUrl: text('client_metadata_url'),
  // client credentials authenticated by a signed JWT (private_key_jwt) instead of a secret
  privateKeyPem: text('private_key_pem'),
  signingAlgorithm: text('signing_algorithm'),
  // what discovery found (the SDK's discovery state), reused by the callback and refreshes
  discovery: text('discovery', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  // the scope the server asked for in its last challenge (401, or 403 insufficient_scope)
  challengedScope: text('challenged_scope'),
  updatedAt: integer('updated_at').notNull(),
})

/** The last lines of each server's stderr and connection log (bounded by the runtime). */
export const serverLogs = sqliteTable('server_logs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  serverName: text('server_name').notNull(),
  at: integer('at').notNull(),
  stream: text('stream', { enum: ['stderr', 'event'] }).notNull(),
  line: text('line').notNull(),
}, (t) => [index('server_logs_server').on(t.serverName, t.id)])
