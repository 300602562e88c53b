import type { UnavailableResult } from '@/lib/preflight/evaluate'
import { taxonomy } from '@/lib/preflight/taxonomy'
import { TOOLGATE } from './names'
import { requestSpan } from './context'
import { telemetry } from './state'

interface Checked { status: string; reason?: string }

/**
 * A check was answered (the preflight seam, or the gate of a tools/call, surface "mcp-call"):
 * counted by verdict and surface, and its verdict and first reason put on the request's span.
 */
export function noteCheck(surface: string, verdict: string, tools: readonly Checked[], requestId: string): void {
  const t = telemetry()
  if (!t) return
  t.metrics?.checks.add(1, { [TOOLGATE.SURFACE]: surface, [TOOLGATE.VERDICT]: verdict })
  const span = t.tracer && requestSpan()
  if (!span) return
  span.setAttribute(TOOLGATE.VERDICT, verdict)
  span.setAttribute(TOOLGATE.REQUEST_ID, requestId)
  const reason = tools.find((x) => x.status === 'unavailable')?.reason
  if (reason) span.setAttribute(TOOLGATE.REASON, reason)
}

/** What became of a held call, as far as the call's span is told: its id, the decision, and when. */
export interface HeldDecision { callId: string; decision: 'pending' | 'approved' | 'denied' | 'expired'; at?: number; by?: string | null }

/** A held call's decision, as an event on the request's span. */
export function noteHeldCall(d: HeldDecision): void {
  const span = telemetry()?.tracer && requestSpan()
  if (!span) return
  span.addEvent('toolgate.held_call', {
    [TOOLGATE.CALL_ID]: d.callId, [TOOLGATE.CALL_DECISION]: d.decision,
    ...(d.by ? { 'toolgate.call.decided_by': d.by } : {}),
  }, d.at)
}

/**
 * The gate of one tools/call: counted as a check (surface "mcp-call") with the verdict its one
 * tool gets (`refused`: its refusal; none: it passed), and a held call's decision as an event.
 */
export function noteCallGate(requestId: string, refused: UnavailableResult | undefined, held: HeldDecision | undefined): void {
  if (!telemetry()) return
  noteCheck('mcp-call', refused ? taxonomy[refused.reason].verdict : 'ready', refused ? [refused] : [], requestId)
  if (held) noteHeldCall(held)
}

/** A commit's start, for noteActivityCommit (0 while metrics are off: no clock read). */
export const commitClock = (): number => (telemetry()?.metrics ? performance.now() : 0)

/** One group commit of activity records: how many, and how long it took (lib/activity/record.ts). */
export function noteActivityCommit(records: number, startedAt: number): void {
  const m = telemetry()?.metrics
  if (!m) return
  m.activityBatchSize.record(records)
  m.activityCommitDuration.record((performance.now() - startedAt) / 1000)
}

/** One retention prune: the activity records and held calls it deleted. */
export function notePruned(records: number, heldCalls: number): void {
  const m = telemetry()?.metrics
  if (!m) return
  m.activityPruned.add(records, { [TOOLGATE.PRUNED]: 'activity' })
  m.activityPruned.add(heldCalls, { [TOOLGATE.PRUNED]: 'held_calls' })
}
