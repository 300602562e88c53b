import { pgTable, bigint, boolean, json, text, primaryKey, index } from 'drizzle-orm/pg-core'
import { connectionActions, connectionStates, isolations, samplingSettings, trusts } from '../../../lib/core/state'
import type { Root, Transport } from '../../schema/servers'

// PostgreSQL twin of db/schema/servers.ts (what each column means is written there); tests/postgres/schema-parity.test.ts keeps the two equal.
export const servers = pgTable('servers', {
  name: text('name').primaryKey(),
  enabled: boolean('enabled').notNull().default(true),
  quarantined: boolean('quarantined').notNull().default(false),
  trust: text('trust', { enum: trusts }).notNull().default('manual'),
  disabledTools: json('disabled_tools').$type<string[]>().notNull().default([]),
  enabledTools: json('enabled_tools').$type<string[] | null>(),
  callApprovalTools: json('call_approval_tools').$type<string[]>().notNull().default([]),
  transport: json('transport').$type<Transport | null>(),
  callTimeoutMs: bigint('call_timeout_ms', { mode: 'number' }).notNull().default(600_000),
  roots: json('roots').$type<Root[]>().notNull().default([]),
  baselineAt: bigint('baseline_at', { mode: 'number' }),
  restartRequestedAt: bigint('restart_requested_at', { mode: 'number' }),
  inspectRequestedAt: bigint('inspect_requested_at', { mode: 'number' }),
  inspectedAt: bigint('inspected_at', { mode: 'number' }),
  inspectFailedAt: bigint('inspect_failed_at', { mode: 'number' }),
  inspectError: text('inspect_error'),
  isolation: text('isolation', { enum: isolations }).notNull().default('auto'),
  sessionState: boolean('session_state'),
  sampling: text('sampling', { enum: samplingSettings }).notNull().default('relay'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
})

export const serverConnections = pgTable('server_connections', {
  serverName: text('server_name').primaryKey().references(() => servers.name, { onDelete: 'cascade' }),
  state: text('state', { enum: connectionStates }).notNull(),
  detail: text('detail'),
  action: text('action', { enum: connectionActions }),
  runtimeInstance: text('runtime_instance'),
  protocolVersion: text('protocol_version'),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
})

export const upstreamSessions = pgTable('upstream_sessions', {
  serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
  tokenId: text('token_id').notNull(),
  state: text('state', { enum: connectionStates }).notNull(),
  detail: text('detail'),
  action: text('action', { enum: connectionActions }),
  runtimeInstance: text('runtime_instance').notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
}, (t) => [primaryKey({ columns: [t.serverName, t.tokenId] })])

export const serverSecrets = pgTable('server_secrets', {
  serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  value: text('value').notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
}, (t) => [primaryKey({ columns: [t.serverName, t.name] })])

export const serverOauth = pgTable('server_oauth', {
  serverName: text('server_name').primaryKey().references(() => servers.name, { onDelete: 'cascade' }),
  clientInformation: text('client_information'),
  tokens: text('tokens'),
  tokensSavedAt: bigint('tokens_saved_at', { mode: 'number' }),
  codeVerifier: text('code_verifier'),
  state: text('state'),
  redirectUrl: text('redirect_url'),
  returnTo: text('return_to'),
  grant: text('grant', { enum: ['authorization_code', 'client_credentials'] }).notNull().default('authorization_code'),
  preRegistered: boolean('pre_registered').notNull().default(false),
  clientMetadataUrl: text('client_metadata_url'),
  privateKeyPem: text('private_key_pem'),
  signingAlgorithm: text('signing_algorithm'),
  discovery: json('discovery').$type<Record<string, unknown> | null>(),
  challengedScope: text('challenged_scope'),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
})

export const serverLogs = pgTable('server_logs', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  serverName: text('server_name').notNull(),
  at: bigint('at', { mode: 'number' }).notNull(),
  stream: text('stream', { enum: ['stderr', 'event'] }).notNull(),
  line: text('line').notNull(),
}, (t) => [index('server_logs_server').on(t.serverName, t.id)])
