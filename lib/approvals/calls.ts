import 'server-only'
import { randomBytes } from 'node:crypto'
import type { Db, Tx } from '@/db/client'
import type { CallApproval } from '@/db/schema'
import { CALL_APPROVAL_TTL_MS, callById, insertCall, openCall, pendingExpired, updateCall, type CallStatus } from '@/db/queries/calls'
import { writeTransaction } from '@/db/write'
import { insertActivity } from '@/lib/activity/record'
import { meterRecorded } from '@/lib/limits/budgets'
import type { ActionContext } from '@/lib/activity/record-change'
import { servedPin } from '@/db/queries/preflight-state'
import { profileServers } from '@/db/queries/access'
import { callerNow } from '@/lib/auth/caller'
import { badRequest, notFoundError } from '@/lib/core/errors'
import { unavailable, type Caller, type UnavailableResult } from '@/lib/preflight/evaluate'
import { argumentsHash, canonicalJson } from '@/lib/preflight/hash'
import { evaluateNow } from '@/lib/gate/check'

/**
 * Call approval: a tools/call of a tool under call approval waits for an operator to approve
 * that exact call — server, tool, actual arguments, and the definition of the tool it was made
 * under (its pin). An approval is for one call: different arguments are a new request, and an
 * identical retry by the same caller joins the open one. The gate is asked again when an
 * approval is about to run the call (callGate): approving lets a call run, it never lets it
 * past the gate.
 *
 *   pending ─approve→ approved ─(one waiter claims it)→ running ─gate says yes→ done (its result, shared)
 *           ─deny→ denied                                        ─gate says no→ refused (its verdict, shared)
 *           ─no decision in an hour→ expired
 */

/** caller: who asked, as records name it; callerId: its token id (absent: anonymous, whose calls nothing joins) */
export interface HeldCall { server: string; tool: string; args: Record<string, unknown>; caller: string; callerId?: string; requestId: string; profile?: string }

const heldData = (c: CallApproval, extra: { reason?: string; pin?: string | null } = {}) => ({
  target: `${c.serverName}:${c.toolName}`, call_id: c.id, caller: c.caller, arguments_hash: c.argumentsHash,
  ...(extra.reason ? { reason: extra.reason } : {}), ...(extra.pin !== undefined ? { pin: extra.pin } : {}),
})

/** Expire pending calls past their hour, each on the record under the request that made it. */
function expireIn(tx: Tx, now: number): void {
  for (const c of pendingExpired(tx, now)) {
    updateCall(tx, c.id, { status: 'expired', decidedAt: now })
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
    // the same token's identical call: by its id, so a token re-created under a revoked one's name joins nothing of the old one's
    const open = call.callerId === undefined ? undefined : openCall(tx, { callerId: call.callerId, server: call.server, tool: call.tool, argumentsHash: hash, now })
    if (open) return { call: open, joined: true }
    const row: CallApproval = {
      id: `call_${randomBytes(9).toString('base64url')}`, serverName: call.server, toolName: call.tool, arguments: canonical,
      argumentsHash: hash, caller: call.caller, callerId: call.callerId ?? null, requestId: call.requestId, status: 'pending', reason: null,
      decidedBy: null, decidedAt: null, result: null, createdAt: now, expiresAt: now + CALL_APPROVAL_TTL_MS,
      // read in this transaction: the definition the caller was served as it asked
      pin: servedPin(db, call.server, call.tool), approvedPin: null, profile: call.profile ?? null,
    }
    insertCall(tx, row)
    meterRecorded(call.caller, canonical.length) // the held arguments count against the caller's volume limit
    insertActivity(tx, { requestId: call.requestId, type: 'call.approval_requested', actor: call.caller, server: call.server, at: now, data: heldData(row, { pin: row.pin }) })
    return { call: row, joined: false }
  })
}

/** Whether the tool is no longer served as it was when the call was requested (its pin moved). */
export const changedSinceRequested = (db: Db, c: Omit<CallApproval, 'arguments' | 'result'>) => c.pin !== servedPin(db, c.serverName, c.toolName)

/**
 * The gate, asked again at the moment a held call's approval would run it: the same evaluator
 * and classifier, the caller as it stands now (a revoked token has no scope left, a narrowed one
 * its narrower scope), the same profile, and the pin its approver was shown — a tool that no
 * longer has it has changed, whatever its approval says now. Undefined: the call may run.
 */
export function callGate(db: Db, c: Omit<CallApproval, 'arguments' | 'result'>, caller: Caller, profile: string | undefined): UnavailableResult | undefined {
  const id = `${c.serverName}:${c.toolName}`
  const current = callerNow(db, caller)
  // a path profile deleted meanwhile leaves nothing in scope (evaluateNow refuses to evaluate under
  // a profile that does not exist); held calls come from /mcp, where every caller is an agent
  const gone = profile !== undefined && profileServers(db, profile) === undefined
  const scoped: Caller = gone && current.tier === 'agent' ? { ...current, allowedServers: [] } : current
  const pin = c.approvedPin ?? c.pin
  const verdict = evaluateNow(db, scoped, { ids: [id], profile: gone ? undefined : profile, ...(pin ? { pins: new Map([[id, pin]]) } : {}) }).tools[0]
  if (verdict.status === 'ready') return undefined
  if (verdict.reason !== 'hash_mismatch') return verdict
  return unavailable(id, 'tool_changed', 'the tool\'s definition changed after this call was requested and approved: the approval was for the definition shown then', { server: c.serverName, tool: c.toolName })
}

/**
 * An operator's decision on one pending call, on the record under the request that made it.
 * An approval is bound to the definition the operator was shown (`shownPin`; without it, the
 * one the call was requested under): a call whose tool changed since it was requested cannot
 * be approved as it is.
 */
export function decideCall(db: Db, id: string, decision: 'approve' | 'deny', ctx: ActionContext, opts: { reason?: string; shownPin?: string } = {}) {
  const { reason } = opts
  return writeTransaction(db, (tx) => {
    const now = Date.now()
    expireIn(tx, now)
    const c = callById(tx, id)
    if (!c) throw notFoundError(`no held call "${id}" (toolgate calls list shows them)`)
    if (c.status !== 'pending') throw badRequest(`call ${id} is ${c.status}, not pending: nothing to decide`)
    const approving = decision === 'approve'
    if (approving && changedSinceRequested(db, c)) {
      throw badRequest(`the tool ${c.serverName}:${c.toolName} changed since this call was requested (requested under ${c.pin ?? 'no pin'}, served now as ${servedPin(db, c.serverName, c.toolName) ?? 'nothing'}): it cannot be approved as it is. Deny it (toolgate calls deny ${id}); the agent may call again under the definition served now`)
    }
    if (approving && opts.shownPin !== undefined && opts.shownPin !== c.pin) {
      throw badRequest(`the call was shown to you under pin ${opts.shownPin}, but was requested under ${c.pin ?? 'no pin'}: review it again, then decide`)
    }
    const status: CallStatus = approving ? 'approved' : 'denied'
    const approvedPin = approving ? opts.shownPin ?? c.pin : null
    updateCall(tx, id, { status, reason: reason ?? null, decidedBy: ctx.actor, decidedAt: now, approvedPin })
    const record = insertActivity(tx, { requestId: c.requestId, type: approving ? 'call.approved' : 'call.denied', actor: ctx.actor, server: c.serverName, at: now, data: heldData(c, { reason, ...(approving ? { pin: approvedPin } : {}) }) })
    const decided: CallApproval = { ...c, status, reason: reason ?? null, decidedBy: ctx.actor, decidedAt: now, approvedPin }
    return { ...decided, activityId: record.id }
  })
}

/** The one waiter that turns an approved call into a running one runs it; every other waiter reads its result. */
export function claimCall(db: Db, id: string): Promise<boolean> {
  return writeTransaction(db, (tx) => updateCall(tx, id, { status: 'running' }, 'approved'))
}

/** The gate refused the approved call when it was to run: its verdict, for everyone waiting on it, on the record. */
export function refuseCall(db: Db, id: string, verdict: UnavailableResult): Promise<void> {
  return writeTransaction(db, (tx) => {
    const c = callById(tx, id)!
    updateCall(tx, id, { status: 'refused', result: { ...verdict } })
    insertActivity(tx, { requestId: c.requestId, type: 'call.refused', actor: 'toolgate', server: c.serverName, data: heldData(c, { reason: verdict.reason }) })
  })
}

/** The call ran once: keep its answer for everyone waiting on it. */
export function finishCall(db: Db, id: string, result: Record<string, unknown>): Promise<void> {
  return writeTransaction(db, (tx) => {
    updateCall(tx, id, { status: 'done', result })
  })
}
