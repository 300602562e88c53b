import 'server-only'
import { randomBytes } from 'node:crypto'
import { and, desc, eq, getTableColumns, gt, inArray, lt, sql } from 'drizzle-orm'
import type { Db, DbLike, Tx } from '@/db/client'
import { callApprovals, type CallApproval } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { insertActivity } from '@/lib/activity/record'
import { meterRecorded } from '@/lib/limits/budgets'
import type { ActionContext } from '@/lib/admin/tools'
import { badRequest, notFoundError } from '@/lib/errors'
import { argumentsHash, canonicalJson } from '@/lib/preflight/hash'

/**
 * Call approval: a tools/call of a tool under call approval waits for an operator to approve
 * that exact call — server, tool and actual arguments. An approval is for one call: different
 * arguments are a new request, and an identical retry by the same caller joins the open one.
 *
 *   pending ─approve→ approved ─(one waiter claims it)→ running → done (its result, shared)
 *           ─deny→ denied            ─no decision in an hour→ expired
 */
export const CALL_APPROVAL_TTL_MS = 60 * 60 * 1000
export type CallStatus = CallApproval['status']

export interface HeldCall { server: string; tool: string; args: Record<string, unknown>; caller: string; requestId: string }

const heldData = (c: CallApproval, reason?: string) => ({
  target: `${c.serverName}:${c.toolName}`, call_id: c.id, caller: c.caller, arguments_hash: c.argumentsHash, ...(reason ? { reason } : {}),
})

/** Expire pending calls past their hour, each on the record under the request that made it. */
function expireIn(tx: Tx, now: number): void {
  for (const c of tx.select().from(callApprovals).where(and(eq(callApprovals.status, 'pending'), lt(callApprovals.expiresAt, now))).all()) {
    tx.update(callApprovals).set({ status: 'expired', decidedAt: now }).where(eq(callApprovals.id, c.id)).run()
    insertActivity(tx, { requestId: c.requestId, type: 'call.expired', actor: 'toolgate', server: c.serverName, at: now, data: heldData(c) })
  }
}

export const expireCalls = (db: Db, now = Date.now()) => writeTransaction(db, (tx) => expireIn(tx, now))

/** Open an approval request for this exact call, or join the open one an identical call made. */
export function requestCall(db: Db, call: HeldCall, now = Date.now()): Promise<{ call: CallApproval; joined: boolean }> {
  const canonical = canonicalJson(call.args)
  const hash = argumentsHash(canonical)
  return writeTransaction(db, (tx) => {
    expireIn(tx, now)
    const open = tx.select().from(callApprovals).where(and(
      eq(callApprovals.caller, call.caller), eq(callApprovals.serverName, call.server), eq(callApprovals.toolName, call.tool),
      eq(callApprovals.argumentsHash, hash), inArray(callApprovals.status, ['pending', 'approved', 'running']), gt(callApprovals.expiresAt, now),
    )).orderBy(desc(callApprovals.createdAt)).get()
    if (open) return { call: open, joined: true }
    const row: CallApproval = {
      id: `call_${randomBytes(9).toString('base64url')}`, serverName: call.server, toolName: call.tool, arguments: canonical,
      argumentsHash: hash, caller: call.caller, requestId: call.requestId, status: 'pending', reason: null,
      decidedBy: null, decidedAt: null, result: null, createdAt: now, expiresAt: now + CALL_APPROVAL_TTL_MS,
    }
    tx.insert(callApprovals).values(row).run()
    meterRecorded(call.caller, canonical.length) // the held arguments count against the caller's volume limit
    insertActivity(tx, { requestId: call.requestId, type: 'call.approval_requested', actor: call.caller, server: call.server, at: now, data: heldData(row) })
    return { call: row, joined: false }
  })
}

export function callById(db: DbLike, id: string): CallApproval | undefined {
  return db.select().from(callApprovals).where(eq(callApprovals.id, id)).get()
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

/** Held calls, newest first (pending ones first when no status is asked for). */
export function listCalls(db: DbLike, status?: CallStatus, limit = 100): CallApproval[] {
  const q = db.select().from(callApprovals)
  return (status ? q.where(eq(callApprovals.status, status)) : q).orderBy(desc(callApprovals.createdAt)).limit(limit).all()
}

/** An operator's decision on one pending call, on the record under the request that made it. */
export function decideCall(db: Db, id: string, decision: 'approve' | 'deny', ctx: ActionContext, reason?: string) {
  return writeTransaction(db, (tx) => {
    const now = Date.now()
    expireIn(tx, now)
    const c = callById(tx, id)
    if (!c) throw notFoundError(`no held call "${id}" (toolgate calls list shows them)`)
    if (c.status !== 'pending') throw badRequest(`call ${id} is ${c.status}, not pending: nothing to decide`)
    const status: CallStatus = decision === 'approve' ? 'approved' : 'denied'
    tx.update(callApprovals).set({ status, reason: reason ?? null, decidedBy: ctx.actor, decidedAt: now }).where(eq(callApprovals.id, id)).run()
    insertActivity(tx, { requestId: c.requestId, type: decision === 'approve' ? 'call.approved' : 'call.denied', actor: ctx.actor, server: c.serverName, at: now, data: heldData(c, reason) })
    return { ...c, status, reason: reason ?? null, decidedBy: ctx.actor, decidedAt: now } satisfies CallApproval
  })
}

/**
 * Delete up to `limit` held calls that were over before `before` — decided, expired or run, and
 * past their hour — in the caller's transaction: retention prunes them with the activity log.
 * A pending call is left to expire on the record first.
 */
export function deleteOldCalls(tx: Tx, before: number, limit: number): number {
  const over = tx.select({ id: callApprovals.id }).from(callApprovals)
    .where(and(inArray(callApprovals.status, ['approved', 'denied', 'expired', 'running', 'done']), lt(callApprovals.createdAt, before - CALL_APPROVAL_TTL_MS)))
    .limit(limit).all()
  return over.length ? tx.delete(callApprovals).where(inArray(callApprovals.id, over.map((r) => r.id))).run().changes : 0
}

/** The one waiter that turns an approved call into a running one runs it; every other waiter reads its result. */
export function claimCall(db: Db, id: string): Promise<boolean> {
  return writeTransaction(db, (tx) =>
    tx.update(callApprovals).set({ status: 'running' }).where(and(eq(callApprovals.id, id), eq(callApprovals.status, 'approved'))).run().changes === 1)
}

/** The call ran once: keep its answer for everyone waiting on it. */
export function finishCall(db: Db, id: string, result: Record<string, unknown>): Promise<void> {
  return writeTransaction(db, (tx) => {
    tx.update(callApprovals).set({ status: 'done', result }).where(eq(callApprovals.id, id)).run()
  })
}
