import 'server-only'
import { asc, eq, isNotNull, sql } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
import { serverConnections, serverSecrets, servers, type Root, type Transport } from '@/db/schema'
import type { ConnectionView, Isolation, ServerView } from '@/lib/core/state'
import { believedConnection, readLease } from './connections'
import { openSecret } from '@/db/secrets'

/**
 * One server as every surface shows it: what the operator configured, and the connection
 * state to believe (a runtime that is gone publishes nothing true). The one per-server view.
 */
export interface ServerState extends ServerView {
  transport: Transport | null
  /** tools whose every call waits for an operator's approval of that exact call */
  callApprovalTools: string[]
  callTimeoutMs: number
  roots: Root[]
  inspectedAt: number | null
  isolation: Isolation
  /** whether the server declared session state when the runtime last connected (null: not yet) */
  sessionState: boolean | null
  /** secret names the transport needs that have no value yet */
  missingSecrets: string[]
  /** null = nothing published yet */
  connection: ConnectionView | null
  restartRequestedAt: number | null
}

export function serverStates(db: DbLike, name?: string): ServerState[] {
  const lease = readLease(db)
  const now = Date.now()
  const set = new Map<string, Set<string>>()
  for (const s of db.select({ server: serverSecrets.serverName, name: serverSecrets.name }).from(serverSecrets).all()) {
    set.set(s.server, (set.get(s.server) ?? new Set()).add(s.name))
  }
  const q = db.select({ s: servers, c: serverConnections }).from(servers)
    .leftJoin(serverConnections, eq(serverConnections.serverName, servers.name))
  return (name === undefined ? q : q.where(eq(servers.name, name))).orderBy(asc(servers.name)).all().map(({ s, c }) => ({
    name: s.name, enabled: s.enabled, quarantined: s.quarantined, trust: s.trust,
    disabledTools: s.disabledTools, enabledTools: s.enabledTools, transport: s.transport, hasTransport: s.transport !== null, restartRequestedAt: s.restartRequestedAt,
    callApprovalTools: s.callApprovalTools, callTimeoutMs: s.callTimeoutMs, roots: s.roots, inspectedAt: s.inspectedAt,
    isolation: s.isolation, sessionState: s.sessionState,
    missingSecrets: (s.transport?.secrets ?? []).filter((n) => !set.get(s.name)?.has(n)),
    connection: c ? believedConnection(c, lease, now) : null,
  }))
}

export const serverState = (db: DbLike, name: string): ServerState | undefined => serverStates(db, name)[0]

const configStatements = new WeakMap<DbLike, ReturnType<typeof prepareConfig>>()
const prepareConfig = (db: DbLike) => db.select({
  name: servers.name, enabled: servers.enabled, quarantined: servers.quarantined, trust: servers.trust,
  disabledTools: servers.disabledTools, enabledTools: servers.enabledTools, transport: servers.transport,
  hasTransport: sql<boolean>`${servers.transport} is not null`.mapWith(Boolean),
  callApprovalTools: servers.callApprovalTools, callTimeoutMs: servers.callTimeoutMs, roots: servers.roots, isolation: servers.isolation,
}).from(servers).where(eq(servers.name, sql.placeholder('name'))).prepare()

/**
 * A server's configuration alone (no connection): what mutations read before they change it,
 * and what every tools/call reads (prepared once per connection: it is on the hot path).
 */
export function serverConfig(db: DbLike, name: string): (ServerView & Pick<ServerState, 'transport' | 'callApprovalTools' | 'callTimeoutMs' | 'roots' | 'isolation'>) | undefined {
  let st = configStatements.get(db)
  if (!st) configStatements.set(db, (st = prepareConfig(db)))
  return st.get({ name })
}

/** Servers the upstream runtime manages (they have a transport), with their secret values (decrypted). */
export function managedServers(db: DbLike) {
  const values = new Map<string, Record<string, string>>()
  for (const s of db.select().from(serverSecrets).all()) values.set(s.serverName, { ...values.get(s.serverName), [s.name]: openSecret(db, s.value) })
  return db.select().from(servers).where(isNotNull(servers.transport)).all()
    .map((s) => ({ ...s, transport: s.transport!, secrets: values.get(s.name) ?? {} }))
}

/** The server names, for pickers. */
export function serverNames(db: DbLike): string[] {
  return db.select({ n: servers.name }).from(servers).orderBy(asc(servers.name)).all().map((r) => r.n)
}
