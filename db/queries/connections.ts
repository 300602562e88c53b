import 'server-only'
import { eq } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
import { runtimeLease, type ServerConnection } from '@/db/schema'
import type { ConnectionView } from '@/lib/preflight/state'

export interface Lease { instance: string; heartbeatAt: number; expiresAt: number }

export function readLease(db: DbLike): Lease | undefined {
  return db.select({ instance: runtimeLease.instance, heartbeatAt: runtimeLease.heartbeatAt, expiresAt: runtimeLease.expiresAt })
    .from(runtimeLease).where(eq(runtimeLease.id, 1)).get()
}

/** Whether runtime `instance` holds a fresh lease: it is running, and what it published still holds. */
export function leaseHeldBy(lease: Lease | undefined, instance: string, now = Date.now()): boolean {
  return lease !== undefined && lease.instance === instance && lease.expiresAt > now
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
  if (row.runtimeInstance === null || leaseHeldBy(lease, row.runtimeInstance, now)) {
    return { state: row.state, detail: row.detail, action: row.action }
  }
  const last = lease && lease.instance === row.runtimeInstance ? ` (its last heartbeat was at ${new Date(lease.heartbeatAt).toISOString()})` : ''
  return { state: 'disconnected', detail: `toolgate's upstream runtime is not running${last}: start toolgate (npm start / toolgate serve)`, action: null }
}
