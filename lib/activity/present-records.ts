import 'server-only'
import type { DbLike } from '@/db/client'
import { callOutcomes } from '@/db/queries/activity'
import { leaseHeldBy, readLease } from '@/db/queries/connections'
import { endOf, presentActivity, type ActivityItem, type CallState } from './present'
import type { ActivityRecord } from '@/lib/core/activity'

/**
 * Records for people and JSON, each call with where it stands: ended when its outcome is on the
 * record (one indexed read for the whole list), running while the runtime that forwarded it
 * still holds its lease, and otherwise "outcome unknown" — toolgate stopped before it landed.
 */
export function presentRecords(db: DbLike, rows: readonly ActivityRecord[]): ActivityItem[] {
  const open = rows.filter((r) => r.type === 'tool.call' && r.data.outcome === undefined)
  if (!open.length) return rows.map((r) => presentActivity(r))
  const outcomes = callOutcomes(db, open)
  const lease = readLease(db)
  const now = Date.now()
  return rows.map((r) => {
    if (r.type !== 'tool.call' || r.data.outcome !== undefined) return presentActivity(r)
    const outcome = outcomes.get(r.id)
    const state: CallState = outcome ? { state: 'ended', end: endOf(outcome.data) }
      : r.data.runtime !== undefined && leaseHeldBy(lease, r.data.runtime, now) ? { state: 'running' } : { state: 'unknown' }
    return presentActivity(r, state)
  })
}
