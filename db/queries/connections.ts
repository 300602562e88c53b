import 'server-only'
import { eq } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
import { runtimeLease, type ServerConnection } from '@/db/schema'
import type { ConnectionView } from '@/lib/preflight/state'

export interface Lease { instance: string; heartbeatAt: number; expiresAt: number }

/** Whether a process with this pid exists (on this machine): a lease whose holder is gone is free. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The toolgate that runs this database's upstream runtime, when it is another live process. */
export interface RuntimeHolder { pid: number; url: string | null }

/**
 * Who holds the runtime lease, unless it is free: expired, held by this process, or by a process
 * that is gone. One database has one running toolgate; this is how a second one (or the CLI) finds it.
 */
export function runtimeHolder(db: DbLike, now = Date.now()): RuntimeHolder | null {
  const held = db.select({ pid: runtimeLease.pid, url: runtimeLease.url, expiresAt: runtimeLease.expiresAt })
    .from(runtimeLease).where(eq(runtimeLease.id, 1)).get()
  if (!held || held.expiresAt <= now || held.pid === process.pid || !processAlive(held.pid)) return null
  return { pid: held.pid, url: held.url }
}

export function readLease(db: DbLike): Lease | undefined {
  return db.select({ instance: runtimeLease.instance, heartbeatAt: runtimeLease.heartbeatAt, expiresAt: runtimeLease.expiresAt })
    .from(runtimeLease).where(eq(runtimeLease.id, 1)).get()
}

/**
 * The connection state to believe. A state file's state is believed as written. A state the
 * runtime published is believed only while that same runtime instance holds a fresh lease:
 * after a crash (kill -9) or a stop, nothing is connected, whatever the row still says.
 */
export function believedConnection(
  row: Pick<ServerConnection, 'state' | 'detail' | 'action' | 'runtimeInstance'>,
  lease: Lease | undefined,
  now = Date.now(),
): ConnectionView {
  if (row.runtimeInstance === null || (lease && lease.instance === row.runtimeInstance && lease.expiresAt > now)) {
    return { state: row.state, detail: row.detail, action: row.action }
  }
  const last = lease && lease.instance === row.runtimeInstance ? ` (its last heartbeat was at ${new Date(lease.heartbeatAt).toISOString()})` : ''
  return { state: 'disconnected', detail: `toolgate's upstream runtime is not running${last}: start toolgate (npm start / toolgate serve)`, action: null }
}
