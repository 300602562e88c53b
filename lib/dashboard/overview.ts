import 'server-only'
import type { Db } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { toolInventory } from '@/lib/catalog/inventory'
import { presentActivity } from '@/lib/activity/present'
import { toolReview } from '@/lib/approvals/review'
import { serverRows } from '@/lib/catalog/servers'

const RECENT_BLOCKED = 8

/** Everything that needs an operator now, each item carrying what its fix needs. */
export function overview(db: Db) {
  const servers = serverRows(db)
  const waiting = toolInventory(db).filter((t) => t.status === 'tool_pending_approval' || t.status === 'tool_changed')
  // the two verdict indexes, merged: blocked and unknown_ids checks, newest first
  const blocked = [...listActivity(db, { verdict: 'blocked', limit: RECENT_BLOCKED }), ...listActivity(db, { verdict: 'unknown_ids', limit: RECENT_BLOCKED })]
    .sort((a, b) => b.id - a.id).slice(0, RECENT_BLOCKED).map(presentActivity)
  return {
    tools: waiting.map((t) => ({ ...t, review: toolReview(db, t.id) })),
    quarantined: servers.filter((s) => s.quarantined),
    loginNeeded: servers.filter((s) => s.enabled && !s.quarantined && s.health === 'login_needed'),
    unhealthy: servers.filter((s) => s.enabled && !s.quarantined && s.health === 'unhealthy'),
    blocked,
  }
}
