import 'server-only'
import { and, count, eq, inArray, isNull } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
import { callApprovals, toolApprovals, tools } from '@/db/schema'

/** Held calls that wait for an operator's decision. */
export function pendingHeldCalls(db: DbLike): number {
  return db.select({ n: count() }).from(callApprovals).where(eq(callApprovals.status, 'pending')).get()?.n ?? 0
}

/** Tools (still listed by their server) waiting for an operator's approval: new ones, and changed definitions. */
export function toolsAwaitingApproval(db: DbLike): { pending: number; changed: number } {
  const rows = db.select({ status: toolApprovals.status, n: count() }).from(toolApprovals)
    .innerJoin(tools, and(eq(tools.serverName, toolApprovals.serverName), eq(tools.name, toolApprovals.toolName)))
    .where(and(isNull(tools.goneAt), inArray(toolApprovals.status, ['pending', 'changed'])))
    .groupBy(toolApprovals.status).all()
  return { pending: rows.find((r) => r.status === 'pending')?.n ?? 0, changed: rows.find((r) => r.status === 'changed')?.n ?? 0 }
}
