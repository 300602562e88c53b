import 'server-only'
import type { DbLike } from '@/db/client'

/** How many calls wait for an operator, and when the oldest was made: the nav badge's poll (one indexed count). */
export function pendingCallCount(db: DbLike): { pending: number; oldestAt: number | null } {
  const row = db.$client.prepare(`select count(*) as n, min(created_at) as oldest from call_approvals where status = 'pending'`).get() as { n: number; oldest: number | null }
  return { pending: row.n, oldestAt: row.oldest }
}
