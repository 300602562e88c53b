import 'server-only'
import type { DbLike } from '@/db/client'

/** At most this many held calls named in the poll: the newest, which a notification names. */
const HELD_NAMED = 20

/**
 * How many calls wait for an operator, when the oldest was made, and the newest few by id and
 * tool (so a browser tells a newly held call from one it has seen): the nav badge's poll, on the
 * (status, created_at) index.
 */
export function pendingCallCount(db: DbLike): { pending: number; oldestAt: number | null; newest: { id: string; tool: string }[] } {
  const row = db.$client.prepare(`select count(*) as n, min(created_at) as oldest from call_approvals where status = 'pending'`).get() as { n: number; oldest: number | null }
  const newest = db.$client.prepare(`select id, server_name || ':' || tool_name as tool from call_approvals where status = 'pending' order by created_at desc limit ?`).all(HELD_NAMED) as { id: string; tool: string }[]
  return { pending: row.n, oldestAt: row.oldest, newest }
}
