import 'server-only'
import type { Db } from '@/db/client'
import { readSnapshot } from '@/db/queries/preflight-state'
import { appendActivity } from '@/lib/activity/record'
import { noteCheck } from '@/lib/telemetry/notes'
import type { Surface } from '@/lib/core/activity'
import { badRequest, describeError, ToolgateError, unavailableError } from '@/lib/core/errors'
import { evaluate, type Caller, type Evaluation, type EvaluationInput, type ToolResult, type UnavailableResult } from '@/lib/preflight/evaluate'
import { uniqueIds } from '@/lib/preflight/ids'
import { taxonomy, type Verdict } from '@/lib/preflight/taxonomy'

export interface PreflightData {
  verdict: Verdict
  checked_at: string
  request_id: string
  waited_ms?: number
  tools: ToolResult[]
}

export interface CheckRequest {
  caller: Caller
  surface: Surface
  requestId: string
  input: EvaluationInput
  waitMs?: number
  /** false only for previews that must not be on the record (the dashboard's _meta preview) */
  record?: boolean
  /**
   * The person who ran it, when not the caller: a dashboard check as an agent token is evaluated
   * as the token, but it is the operator's act, so the record is theirs (the token in its data).
   */
  by?: { actor: string; operatorId?: string; auth?: string }
}

export const WAIT_POLL_MS = 250
export const WAITER_POOL_SIZE = 4
let activeWaiters = 0

/** Evaluate once against one snapshot. A failed read is an error, never a reason (§8.2). */
export function evaluateNow(db: Db, caller: Caller, input: EvaluationInput): Evaluation {
  try {
    return readSnapshot(db, (state) => {
      if (input.profile !== undefined && state.profileServers(input.profile) === undefined) {
        throw badRequest(`unknown profile "${input.profile}"`)
      }
      return evaluate(state, caller, input)
    })
  } catch (e) {
    if (e instanceof ToolgateError) throw e
    throw unavailableError(`proxy state could not be read: ${describeError(e)}`)
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Only a degraded_retryable verdict is worth waiting on; any non-retryable failure stops at once. */
function settled(e: Evaluation): boolean {
  return e.verdict !== 'degraded_retryable' || e.tools.some((t) => t.status === 'unavailable' && !t.retryable)
}

async function waitForReady(db: Db, caller: Caller, input: EvaluationInput, first: Evaluation, waitMs: number, started: number) {
  let current = first
  if (settled(current) || waitMs === 0 || activeWaiters >= WAITER_POOL_SIZE) return { evaluation: current, waited: 0 }
  activeWaiters++
  try {
    const deadline = started + waitMs
    while (!settled(current) && Date.now() < deadline) {
      await sleep(Math.min(WAIT_POLL_MS, deadline - Date.now()))
      current = evaluateNow(db, caller, input)
    }
  } finally {
    activeWaiters--
  }
  return { evaluation: current, waited: Date.now() - started }
}

/**
 * The one evaluation seam every surface calls: evaluate (optionally waiting), write the
 * activity record durably, then — and only then — return the verdict (§8.4).
 */
export async function runCheck(db: Db, req: CheckRequest): Promise<PreflightData> {
  const started = Date.now()
  const first = evaluateNow(db, req.caller, req.input)
  const { evaluation, waited } = req.waitMs === undefined
    ? { evaluation: first, waited: undefined }
    : await waitForReady(db, req.caller, req.input, first, req.waitMs, started)
  return finishCheck(db, req, evaluation, started, waited)
}

/** An id that names no tool is recorded to at most this many characters: the caller chose it, and a record stays small. */
export const MAX_RECORDED_UNKNOWN_ID = 80
const recordedId = (t: UnavailableResult) =>
  taxonomy[t.reason].verdict === 'unknown_ids' && t.id.length > MAX_RECORDED_UNKNOWN_ID ? `${t.id.slice(0, MAX_RECORDED_UNKNOWN_ID)}…` : t.id

async function finishCheck(db: Db, req: Omit<CheckRequest, 'waitMs'>, evaluation: Evaluation, started: number, waited: number | undefined): Promise<PreflightData> {
  const checkedAt = new Date()
  const { input } = req
  if (req.record !== false) try {
    await appendActivity(db, {
      requestId: req.requestId,
      type: 'preflight',
      surface: req.surface,
      tier: req.caller.tier,
      actor: req.by?.actor ?? req.caller.name,
      ...(req.by?.operatorId ? { operatorId: req.by.operatorId } : {}),
      ...(req.by?.auth ? { auth: req.by.auth } : {}),
      verdict: evaluation.verdict,
      at: checkedAt.getTime(),
      data: {
        ids_raw: input.ids.length,
        ids_unique: uniqueIds(input.ids).length,
        tools: evaluation.tools.map((t) => (t.status === 'ready' ? { id: t.id, status: t.status } : { id: recordedId(t), status: t.status, reason: t.reason })),
        ...(req.by && req.by.actor !== req.caller.name ? { as: req.caller.name } : {}),
        ...(input.profile !== undefined ? { profile: input.profile } : {}),
        ...(input.policy ? { policy: input.policy } : {}),
        ...(input.pins?.size ? { pinned: input.pins.size } : {}),
        ...(waited !== undefined ? { waited_ms: waited } : {}),
        duration_ms: checkedAt.getTime() - started,
      },
    })
  } catch (e) {
    throw unavailableError(`activity record not persisted, so no verdict is given: ${describeError(e)}`)
  }
  if (req.record !== false) noteCheck(req.surface, evaluation.verdict, evaluation.tools, req.requestId)
  return {
    verdict: evaluation.verdict,
    checked_at: checkedAt.toISOString(),
    request_id: req.requestId,
    ...(waited !== undefined ? { waited_ms: waited } : {}),
    tools: evaluation.tools,
  }
}
