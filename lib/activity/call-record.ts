import 'server-only'
import type { Db } from '@/db/client'
import { describeError, unavailableError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { argumentsHash, canonicalJson } from '@/lib/preflight/hash'
import { appendActivity, type ActivityInput } from './record'
import { mintRequestId } from './request-id'
import type { Asker, AskNote, CallData, CallEnd } from '@/lib/core/activity'

/** An error a call ended with is kept to this many characters in its record (an upstream chooses its words). */
export const MAX_RECORDED_ERROR = 500

export interface CallIdentity {
  requestId: string
  actor: string
  tier: 'operator' | 'agent'
  server: string | undefined
  target: string
  args: unknown
  taskId?: string
}

const trimmed = (e: string) => (e.length > MAX_RECORDED_ERROR ? `${e.slice(0, MAX_RECORDED_ERROR)}… (${e.length} characters)` : e)

/**
 * One tools/call's record, in two parts (contract §12). The call — caller, tool, a SHA-256 of the
 * canonical arguments, time, request id — is committed while the upstream works, and the
 * answer waits for that commit: a call whose record failed is never answered as a success.
 * The outcome follows through the group commit, without holding the answer. A call that never
 * reaches the upstream is one record, its end included, committed before the answer.
 */
export class CallRecorder {
  private readonly started = Date.now()
  private readonly hash: string
  /** the tool.call record's id, once a forwarded call's record has committed */
  private forwardedAs?: number

  constructor(private readonly db: Db, private readonly call: CallIdentity) {
    this.hash = argumentsHash(canonicalJson(call.args ?? {}))
  }

  private callRecord(extra: { call_id?: string; runtime?: string }, end?: CallEnd): ActivityInput {
    const { requestId, actor, tier, server, target, taskId } = this.call
    const data: CallData = end
      ? { target, arguments_hash: this.hash, ...(taskId ? { task_id: taskId } : {}), ...extra, ...end }
      : { target, arguments_hash: this.hash, ...(taskId ? { task_id: taskId } : {}), ...extra }
    return { requestId, type: 'tool.call', actor, tier, server, at: this.started, data }
  }

  /**
   * Run `run` (the forwarding) at once while the call's record commits, and hand back its result
   * only once that commit has completed. A failed commit fails the call instead — and `withheld`
   * tells `run` to stop what it can.
   */
  async forward<T>(how: { runtime: string; callId?: string }, run: (withheld: AbortSignal) => Promise<T>): Promise<T> {
    const withheld = new AbortController()
    const committed = appendActivity(this.db, this.callRecord({ ...(how.callId ? { call_id: how.callId } : {}), runtime: how.runtime }))
      .then((row) => { this.forwardedAs = row.id }, (e: unknown) => {
        withheld.abort()
        return { failed: e }
      })
    const result = await run(withheld.signal)
    const failure = await committed
    if (failure) {
      throw unavailableError(`the call's record could not be committed, so its result is withheld (the upstream may have run it: check before calling again): ${describeError(failure.failed)}`)
    }
    return result
  }

  /**
   * The call's end. After forwarding: its outcome, appended through the group commit and not
   * waited for (until it lands the call reads as running). Otherwise the whole call in one
   * record, committed before the answer — a failed commit fails the answer.
   */
  async end(end: Omit<CallEnd, 'duration_ms'>, callId?: string): Promise<void> {
    const data: CallEnd = {
      outcome: end.outcome, ...(end.reason ? { reason: end.reason } : {}), ...(end.error ? { error: trimmed(end.error) } : {}),
      duration_ms: Date.now() - this.started,
    }
    const { requestId, actor, tier, server, target } = this.call
    if (this.forwardedAs !== undefined) {
      appendActivity(this.db, { requestId, type: 'tool.call_outcome', actor, tier, server, data: { call: this.forwardedAs, target, ...data } }, false)
        .catch((e: unknown) => logError(`toolgate: the outcome of tool call ${target} (request ${requestId}, call record ${this.forwardedAs}) could not be recorded; it reads as running until toolgate restarts: ${describeError(e)}`))
      return
    }
    try {
      await appendActivity(this.db, this.callRecord(callId ? { call_id: callId } : {}, data))
    } catch (e) {
      throw unavailableError(`the call's record could not be committed, so it is not answered: ${describeError(e)}`)
    }
  }
}

/** Questions a server may ask with no call in flight that are recorded one by one, per server and minute. */
export const UNATTRIBUTED_ASKS_PER_MINUTE = 30
const unattributed = new Map<string, { since: number; recorded: number; skipped: number }>()

/**
 * Whether one more question that names no call may be recorded for `server`. A question during a
 * call is its agent's record and counts against that agent's volume limit; one with no call in
 * flight is the runtime's, which no limit covers, so an upstream could otherwise fill the log
 * with them. Past the bound it is still settled (declined or refused), unrecorded; how many were
 * is logged with the server's next question after the minute.
 */
function unattributedRoom(server: string): boolean {
  const now = Date.now()
  let w = unattributed.get(server)
  if (!w || now - w.since >= 60_000) {
    if (w?.skipped) logError(`toolgate: server ${server} asked ${w.skipped} more questions with no call in flight within a minute; past ${UNATTRIBUTED_ASKS_PER_MINUTE} a minute they are settled unrecorded`)
    unattributed.set(server, (w = { since: now, recorded: 0, skipped: 0 }))
  }
  if (w.recorded < UNATTRIBUTED_ASKS_PER_MINUTE) {
    w.recorded++
    return true
  }
  w.skipped++
  return false
}

/**
 * What server `server` asked during a call (an elicitation, a sampling), recorded as it was
 * decided, under the call's request id and caller (a question that names no call: the runtime's,
 * under a request id of its own). Appended through the group commit and not waited for, as a
 * call's outcome is: the answer to the upstream (and so the call) must not wait on an fsync, and
 * the question was put, or refused, whether or not its record lands; a record that fails is logged.
 */
export function recordAsk(db: Db, server: string, note: AskNote, asker: Asker | undefined): void {
  if (!asker && !unattributedRoom(server)) return
  const requestId = asker?.requestId ?? mintRequestId()
  appendActivity(db, { requestId, type: 'server.asked', actor: asker?.actor ?? 'runtime', tier: asker?.tier, server, data: { target: asker?.target ?? server, ...note } }, false)
    .catch((e: unknown) => logError(`toolgate: what server ${server} asked (${note.ask}: ${note.outcome}, request ${requestId}) could not be recorded: ${describeError(e)}`))
}
