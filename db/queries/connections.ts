import 'server-only'
import { hostname } from 'node:os'
import { and, eq, inArray } from 'drizzle-orm'
import type { Db, DbLike, Tx } from '@/db/client'
import { writeRecords, writeTransaction } from '@/db/write'
import { runtimeLease, serverConnections, servers, upstreamSessions, type ServerConnection } from '@/db/schema'
import type { ConnectionState, ConnectionAction, ConnectionView } from '@/lib/core/state'

export interface Lease { instance: string; pid: number; host: string | null; url: string | null; heartbeatAt: number; expiresAt: number }

/** This machine, as a lease names its holder's. */
export const THIS_HOST = hostname()

export const leaseColumns = {
  instance: runtimeLease.instance, pid: runtimeLease.pid, host: runtimeLease.host, url: runtimeLease.url, heartbeatAt: runtimeLease.heartbeatAt, expiresAt: runtimeLease.expiresAt,
}

export function readLease(db: DbLike): Lease | undefined {
  return db.select(leaseColumns).from(runtimeLease).where(eq(runtimeLease.id, 1)).get()
}

/** Take the one runtime lease (the caller has checked it is free), inside its write transaction. */
export function takeLease(tx: Tx, lease: Lease & { startedAt: number }): void {
  tx.insert(runtimeLease).values({ id: 1, ...lease }).onConflictDoUpdate({ target: runtimeLease.id, set: lease }).run()
}

/** Renew the lease, if `instance` still holds it. */
export function renewLease(db: Db, lease: Lease): Promise<void> {
  return writeRecords(db, (tx) => {
    tx.update(runtimeLease).set(lease).where(eq(runtimeLease.instance, lease.instance)).run()
  })
}

/**
 * Runtime `instance` stops: the connections it published (of `serverNames`) read disconnected,
 * and its lease is given up, in one transaction (waiting at most `waitMs` for the lock).
 */
export function releaseLease(db: Db, instance: string, serverNames: readonly string[], waitMs: number): Promise<void> {
  return writeTransaction(db, (tx) => {
    if (serverNames.length) {
      tx.update(serverConnections).set({ state: 'disconnected', detail: 'toolgate stopped', action: null, protocolVersion: null, updatedAt: Date.now() })
        .where(and(inArray(serverConnections.serverName, [...serverNames]), eq(serverConnections.runtimeInstance, instance))).run()
    }
    tx.delete(runtimeLease).where(eq(runtimeLease.instance, instance)).run()
  }, waitMs)
}

/** A connection state as the runtime publishes it; `protocol`: the revision a ready connection speaks. */
export interface Published { state: ConnectionState; detail?: string | null; action?: ConnectionAction | null; protocol?: string | null }

/** Write a server's connection state, published by runtime `instance` (null: by a state file), inside the caller's write transaction. */
export function putConnectionState(tx: Tx, serverName: string, p: Published, instance: string | null, now = Date.now()): void {
  const values = { state: p.state, detail: p.detail ?? null, action: p.action ?? null, protocolVersion: p.protocol ?? null, runtimeInstance: instance, updatedAt: now }
  tx.insert(serverConnections).values({ serverName, ...values }).onConflictDoUpdate({ target: serverConnections.serverName, set: values }).run()
}

/**
 * Publish a server's connection state, the one thing preflight reads about the runtime.
 * `instance` names the runtime that publishes it: such a state is believed only while that
 * runtime's lease is fresh (db/queries/preflight-state.ts).
 */
export function publishState(db: Db, serverName: string, p: Published, instance: string | null): Promise<void> {
  return writeTransaction(db, (tx) => putConnectionState(tx, serverName, p, instance))
}

/** Whether a process with this pid exists on this machine (one of another user's counts). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Whether the lease's holder is a process of this machine that no longer runs (kill -9): then the
 * lease is dead at once, whatever its expiry says. A holder on another machine is known gone only
 * when its lease runs out.
 */
export function leaseHolderGone(lease: Pick<Lease, 'pid' | 'host'>): boolean {
  return lease.pid !== process.pid && (lease.host === null || lease.host === THIS_HOST) && !processAlive(lease.pid)
}

/** Whether the lease still vouches for its runtime at `now`. */
export const leaseAlive = (lease: Lease, now: number) => lease.expiresAt > now && !leaseHolderGone(lease)

/** The toolgate that runs this database's upstream runtime, when it is another live process. */
export interface RuntimeHolder { pid: number; url: string | null }

/**
 * Who holds the runtime lease, unless it is free: expired, held by this process, or by a process
 * of this machine that is gone. One database has one running toolgate; this is how a second one
 * (or the CLI) finds it.
 */
export function runtimeHolder(db: DbLike, now = Date.now()): RuntimeHolder | null {
  const held = readLease(db)
  if (!held || held.pid === process.pid || !leaseAlive(held, now)) return null
  return { pid: held.pid, url: held.url }
}

/** Whether runtime `instance` holds a live lease: it is running, and what it published still holds. */
export function leaseHeldBy(lease: Lease | undefined, instance: string, now = Date.now()): boolean {
  return lease !== undefined && lease.instance === instance && leaseAlive(lease, now)
}

/**
 * The connection state to believe. A state file's state is believed as written. A state the
 * runtime published is believed only while that same runtime instance holds a live lease:
 * after a crash (kill -9) or a stop, nothing is connected, whatever the row still says.
 */
export function believedConnection(
  row: Pick<ServerConnection, 'state' | 'detail' | 'action' | 'runtimeInstance'>,
  lease: Lease | undefined,
  now = Date.now(),
): ConnectionView {
  const own = lease && lease.instance === row.runtimeInstance ? lease : undefined
  if (row.runtimeInstance === null || leaseHeldBy(lease, row.runtimeInstance, now)) {
    return { state: row.state, detail: row.detail, action: row.action }
  }
  const last = own ? ` (${own.expiresAt > now ? `its process ${own.pid} is gone; ` : ''}its last heartbeat was at ${new Date(own.heartbeatAt).toISOString()})` : ''
  return { state: 'disconnected', detail: `toolgate's upstream runtime is not running${last}: start toolgate (npm start / toolgate serve)`, action: null }
}

/**
 * Publish one agent token's own session state: a session that is down is on record (preflight
 * tells that token so), one that is up or stopped is not (a stopped one starts again on first use).
 */
export function publishSessionState(db: Db, serverName: string, tokenId: string, p: Published | null, instance: string): Promise<void> {
  return writeTransaction(db, (tx) => {
    const at = and(eq(upstreamSessions.serverName, serverName), eq(upstreamSessions.tokenId, tokenId))
    if (!p) return void tx.delete(upstreamSessions).where(at).run()
    const values = { state: p.state, detail: p.detail ?? null, action: p.action ?? null, runtimeInstance: instance, updatedAt: Date.now() }
    tx.insert(upstreamSessions).values({ serverName, tokenId, ...values })
      .onConflictDoUpdate({ target: [upstreamSessions.serverName, upstreamSessions.tokenId], set: values }).run()
  })
}

/** Whether the server declared session state when last connected (it decides `auto` isolation, and the server page says so). */
export function recordSessionState(db: Db, serverName: string, declared: boolean): Promise<void> {
  return writeTransaction(db, (tx) => {
    tx.update(servers).set({ sessionState: declared }).where(eq(servers.name, serverName)).run()
  })
}

/** Forget every agent session's state: a runtime starting has no sessions yet. */
export function clearSessionStates(db: DbLike): void {
  db.delete(upstreamSessions).run()
}
