import type { Db } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import type { ActivityRecord, ActivityType } from '@/lib/core/activity'

/**
 * The record a mutation wrote under this run's request id (every CLI mutation passes one), so
 * its JSON can name the record, and show the before/after the record keeps, even where the
 * library function that changed things returns nothing.
 */
export function recordOf<T extends ActivityType>(db: Db, requestId: string, type: T): Extract<ActivityRecord, { type: T }> {
  const [r] = listActivity(db, { requestId, type, limit: 1 })
  // a change without its record cannot happen (they commit together): finding none is a bug
  if (!r) throw new Error(`no ${type} record under request ${requestId}`)
  return r as Extract<ActivityRecord, { type: T }>
}

/** Every record of one type under a request id, oldest first (an import writes one per server). */
export function recordsOf<T extends ActivityType>(db: Db, requestId: string, type: T): Extract<ActivityRecord, { type: T }>[] {
  return listActivity(db, { requestId, type, limit: 10_000 }).reverse() as Extract<ActivityRecord, { type: T }>[]
}
