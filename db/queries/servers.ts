import 'server-only'
import { asc, eq, isNotNull, sql } from 'drizzle-orm'
import type { Db, DbLike, Tx } from '@/db/client'
import { serverConnections, serverOauth, serverSecrets, servers, type Root, type Transport } from '@/db/schema'
import type { ConnectionView, Isolation, Sampling, ServerView } from '@/lib/core/state'
import { believedConnection, readLease } from './connections'
import { keptRead } from './preflight-state'
import { openSecret, sealSecret } from '@/db/secrets'
import { notFoundError } from '@/lib/core/errors'

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
  /** whether the server's sampling requests go to the caller (relay) or are refused unasked (withhold) */
  sampling: Sampling
  /** secret names the transport needs that have no value yet */
  missingSecrets: string[]
  /** null = nothing published yet */
  connection: ConnectionView | null
  /** the MCP revision the ready connection speaks (null: not ready, or not believed) */
  protocolVersion: string | null
  /** when the runtime last published the connection (null: never): a restart asked for later has not landed yet */
  connectionAt: number | null
  restartRequestedAt: number | null
  inspectRequestedAt: number | null
  /** the last inspection that failed (null: none), and why */
  inspectFailedAt: number | null
  inspectError: string | null
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
  return (name === undefined ? q : q.where(eq(servers.name, name))).orderBy(asc(servers.name)).all().map(({ s, c }) => {
    const connection = c ? believedConnection(c, lease, now) : null
    return {
      name: s.name, enabled: s.enabled, quarantined: s.quarantined, trust: s.trust,
      disabledTools: s.disabledTools, enabledTools: s.enabledTools, transport: s.transport, hasTransport: s.transport !== null, restartRequestedAt: s.restartRequestedAt,
      callApprovalTools: s.callApprovalTools, callTimeoutMs: s.callTimeoutMs, roots: s.roots, inspectedAt: s.inspectedAt,
      isolation: s.isolation, sessionState: s.sessionState, sampling: s.sampling,
      missingSecrets: (s.transport?.secrets ?? []).filter((n) => !set.get(s.name)?.has(n)),
      connection,
      protocolVersion: connection?.state === 'ready' ? c!.protocolVersion : null,
      connectionAt: c?.updatedAt ?? null, inspectRequestedAt: s.inspectRequestedAt, inspectFailedAt: s.inspectFailedAt, inspectError: s.inspectError,
    }
  })
}

export const serverState = (db: DbLike, name: string): ServerState | undefined => serverStates(db, name)[0]

const configStatements = new WeakMap<DbLike, ReturnType<typeof prepareConfig>>()
const prepareConfig = (db: DbLike) => db.select({
  name: servers.name, enabled: servers.enabled, quarantined: servers.quarantined, trust: servers.trust,
  disabledTools: servers.disabledTools, enabledTools: servers.enabledTools, transport: servers.transport,
  hasTransport: sql<boolean>`${servers.transport} is not null`.mapWith(Boolean),
  callApprovalTools: servers.callApprovalTools, callTimeoutMs: servers.callTimeoutMs, roots: servers.roots, isolation: servers.isolation, sampling: servers.sampling,
}).from(servers).where(eq(servers.name, sql.placeholder('name'))).prepare()

/**
 * A server's configuration alone (no connection): what mutations read before they change it,
 * and what every tools/call reads (prepared once per connection: it is on the hot path).
 */
export function serverConfig(db: DbLike, name: string): (ServerView & Pick<ServerState, 'transport' | 'callApprovalTools' | 'callTimeoutMs' | 'roots' | 'isolation' | 'sampling'>) | undefined {
  let st = configStatements.get(db)
  if (!st) configStatements.set(db, (st = prepareConfig(db)))
  return st.get({ name })
}

/** serverConfig as every tools/call reads it: kept while nothing served can have changed (keptRead). */
export const callConfig = (db: Db, name: string) => keptRead(db, `server:${name}`, () => serverConfig(db, name))

/** The configured server a change is about, or the not-found error every surface reports the same way. */
export function requireServer(db: DbLike, name: string) {
  const server = serverConfig(db, name)
  if (!server) throw notFoundError(`no server "${name}" is configured`)
  return server
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

/** A server's columns a change may set (its name is who it is). */
export type ServerChange = Partial<Omit<typeof servers.$inferInsert, 'name'>>

/** Change a server's row, inside the caller's write transaction (with the change's record). */
export function updateServer(tx: Tx, name: string, change: ServerChange): void {
  tx.update(servers).set(change).where(eq(servers.name, name)).run()
}

/** Add a server's row (the rest of its columns take their defaults). */
export function insertServerRow(tx: Tx, row: typeof servers.$inferInsert): void {
  tx.insert(servers).values(row).run()
}

/** Remove a server: its connection, tools, approvals, secrets, OAuth state and definitions go with it. */
export function deleteServer(tx: Tx, name: string): void {
  tx.delete(servers).where(eq(servers.name, name)).run()
}

/** Store (or replace) one of a server's secret values, sealed (db/secrets.ts). */
export function saveSecret(tx: Tx, serverName: string, name: string, value: string, now: number): void {
  const sealed = sealSecret(tx, value)
  tx.insert(serverSecrets).values({ serverName, name, value: sealed, updatedAt: now })
    .onConflictDoUpdate({ target: [serverSecrets.serverName, serverSecrets.name], set: { value: sealed, updatedAt: now } }).run()
}

/** Drop what a server stored for its target: its secret values, OAuth client and tokens. */
export function dropCredentials(tx: Tx, serverName: string): void {
  tx.delete(serverOauth).where(eq(serverOauth.serverName, serverName)).run()
  tx.delete(serverSecrets).where(eq(serverSecrets.serverName, serverName)).run()
}

/** Whether a server has an approved baseline (a state file's tools, its first discovery): only then is a tool without an approval record implicitly approved. */
export function serverBaselined(db: DbLike, name: string): boolean {
  return db.select({ at: servers.baselineAt }).from(servers).where(eq(servers.name, name)).get()?.at != null
}
