import 'server-only'
import { and, desc, eq, getTableColumns, gt, inArray, lt, sql } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { callApprovals, type CallApproval } from '@/db/schema'

/** Held calls under call approval (lib/approvals/calls.ts says how one moves from status to status). */
export type CallStatus = CallApproval['status']

export function callById(db: DbLike, id: string): CallApproval | undefined {
  return db.select().from(callApprovals).where(eq(callApprovals.id, id)).get()
}

/** The arguments (their JSON text) of the held calls among `ids` (at most the export's 10 000). */
export function callArgumentsOf(db: DbLike, ids: readonly string[]): Map<string, string> {
  if (!ids.length) return new Map()
  const rows = db.select({ id: callApprovals.id, arguments: callApprovals.arguments }).from(callApprovals).where(inArray(callApprovals.id, [...ids])).all()
  return new Map(rows.map((r) => [r.id, r.arguments]))
}

/** Pending calls whose hour ran out before `now`. */
export function pendingExpired(db: DbLike, now: number): CallApproval[] {
  return db.select().from(callApprovals).where(and(eq(callApprovals.status, 'pending'), lt(callApprovals.expiresAt, now))).all()
}

/** The newest open (pending, approved or running) call of this caller with these arguments, not expired at `now`. */
export function openCall(db: DbLike, c: { callerId: string; server: string; tool: string; argumentsHash: string; now: number }): CallApproval | undefined {
  return db.select().from(callApprovals).where(and(
    eq(callApprovals.callerId, c.callerId), eq(callApprovals.serverName, c.server), eq(callApprovals.toolName, c.tool),
    eq(callApprovals.argumentsHash, c.argumentsHash), inArray(callApprovals.status, ['pending', 'approved', 'running']), gt(callApprovals.expiresAt, c.now),
  )).orderBy(desc(callApprovals.createdAt)).get()
}

/** A held call without its arguments and result: their size, and a prefix of the arguments. */
export type CallSummary = Omit<CallApproval, 'arguments' | 'result'> & { argumentsPrefix: string; argumentsLength: number }

/**
 * Held calls as a list shows them, newest first: the arguments cut to `prefix` characters in the
 * database, so a list of large calls reads (and sends) little.
 */
export function listCallSummaries(db: DbLike, status: CallStatus | undefined, limit: number, prefix: number): CallSummary[] {
  const { arguments: _a, result: _r, ...columns } = getTableColumns(callApprovals)
  const q = db.select({ ...columns, argumentsPrefix: sql<string>`substr(${callApprovals.arguments}, 1, ${prefix})`, argumentsLength: sql<number>`length(${callApprovals.arguments})` }).from(callApprovals)
  return (status ? q.where(eq(callApprovals.status, status)) : q).orderBy(desc(callApprovals.createdAt)).limit(limit).all()
}

/** Held calls, newest first. */
export function listCalls(db: DbLike, status?: CallStatus, limit = 100): CallApproval[] {
  const q = db.select().from(callApprovals)
  return (status ? q.where(eq(callApprovals.status, status)) : q).orderBy(desc(callApprovals.createdAt)).limit(limit).all()
}

// Writes, each inside the caller's write transaction.

export function insertCall(tx: Tx, row: CallApproval): void {
  tx.insert(callApprovals).values(row).run()
}

/** Change a held call; with `from`, only while it has that status (false: it had another). */
export function updateCall(tx: Tx, id: string, change: Partial<Omit<CallApproval, 'id'>>, from?: CallStatus): boolean {
  return tx.update(callApprovals).set(change).where(and(eq(callApprovals.id, id), from === undefined ? undefined : eq(callApprovals.status, from))).run().changes === 1
}

/** How long a held call waits for an operator's decision before it expires (lib/approvals/calls.ts). */
export const CALL_APPROVAL_TTL_MS = 60 * 60 * 1000

/**
 * Delete up to `limit` held calls that were over before `before` — decided, expired or run (not
 * pending or refused), and past their hour — in the caller's transaction: retention prunes them
 * with the activity log. A pending call is left to expire on the record first. How many went.
 */
export function deleteOldCalls(tx: Tx, before: number, limit: number): number {
  const createdBefore = before - CALL_APPROVAL_TTL_MS
  const over = tx.select({ id: callApprovals.id }).from(callApprovals)
    .where(and(inArray(callApprovals.status, ['approved', 'denied', 'expired', 'running', 'done']), lt(callApprovals.createdAt, createdBefore)))
    .limit(limit).all()
  return over.length ? tx.delete(callApprovals).where(inArray(callApprovals.id, over.map((r) => r.id))).run().changes : 0
}
