import 'server-only'
import type { CallToolResult, LoggingMessageNotification, Progress } from '@modelcontextprotocol/client'
import type { Db } from '@/db/client'
import { CallRecorder } from '@/lib/activity/call-record'
import { idBoundsFault, parseToolId } from '@/lib/preflight/ids'
import { badRequest } from '@/lib/core/errors'
import { evaluateNow } from '@/lib/gate/check'
import { unavailable, type Caller, type UnavailableResult } from '@/lib/preflight/evaluate'
import { runningSupervisor, type Supervisor } from './supervisor'
import { describeConnectionError, isTimeout } from './outcome'
import { upstreamError, type UpstreamError } from './answered'
import { callConfig } from '@/db/queries/servers'
import { readSettings } from '@/db/queries/settings'
import type { CallApproval } from '@/db/schema'
import type { Isolation } from '@/lib/core/state'
import { callGate, claimCall, finishCall, refuseCall, requestCall } from '@/lib/approvals/calls'
import { callById } from '@/db/queries/calls'
import { callerKey } from '@/lib/auth/caller'
import type { AskCaller } from './calls'
import { noteCallGate, type HeldDecision } from '@/lib/telemetry/notes'

export interface CallContext {
  db: Db
  caller: Caller
  profile: string | undefined
  requestId: string
  /** the client's progress token, as a sink: upstream progress (and the wait for an approval) go here */
  progress?: (p: Progress) => void
  /** puts what an upstream asks during the call (an elicitation, a sampling) to the caller (absent: the client cannot be asked) */
  ask?: AskCaller
  /** the upstream's log messages during the call */
  log?: (params: LoggingMessageNotification['params']) => void
  /** the client cancelled, or went away: any of these aborting (followed where the call is forwarded) */
  signals?: readonly (AbortSignal | undefined)[]
  /** the task this call runs as (a task-augmented call), for its record */
  taskId?: string
  /** the client's request _meta for the upstream (toolgate's own keys already taken out) */
  meta?: Record<string, unknown>
}

/** What became of one tools/call; the MCP surface words it (lib/mcp). */
export type CallOutcome =
  | { kind: 'refused'; verdict: UnavailableResult }
  | { kind: 'answered'; result: CallToolResult; callId?: string }
  | { kind: 'failed'; error: string }
  /** the upstream answered a JSON-RPC error: the caller gets it as given */
  | ({ kind: 'rejected' } & UpstreamError)
  /** under call approval: no decision yet (the request stays open), denied, or expired */
  | { kind: 'held' | 'denied' | 'expired'; call: CallApproval }
  /** the client cancelled the call (or went away): nothing is answered */
  | { kind: 'cancelled' }

/** What a call of a server needs of its configuration: its call timeout, and who shares a session. */
interface UpstreamConfig { timeoutMs: number; isolation: Isolation }

const outcomeName = (o: CallOutcome) => (o.kind === 'answered' ? (o.result.isError ? 'tool_error' : 'ok') : o.kind === 'rejected' ? 'failed' : o.kind)
/** What the record says of a call that failed. */
const failure = (o: CallOutcome) => (o.kind === 'failed' ? o.error : o.kind === 'rejected' ? `the upstream answered error ${o.code}: ${o.message}` : undefined)

/** A held call's decision in an outcome, for its telemetry (none: the call was not held). */
const heldDecision = (o: CallOutcome): HeldDecision | undefined => ('call' in o
  ? { callId: o.call.id, decision: o.kind === 'held' ? 'pending' : o.kind, at: o.call.decidedAt ?? undefined, by: o.call.decidedBy }
  : o.kind === 'answered' && o.callId ? { callId: o.callId, decision: 'approved' } : undefined)

/**
 * One call on the live connection, within the server's call timeout (progress restarts it),
 * forwarded at once while `record` commits the call (its answer waits for that commit).
 * A timeout, a cancellation and a broken connection each say what happened.
 */
async function callUpstream(ctx: CallContext, server: string, tool: string, args: Record<string, unknown> | undefined, supervisor: Supervisor | undefined, config: UpstreamConfig, record: CallRecorder, callId?: string): Promise<CallOutcome> {
  const timeoutMs = config.timeoutMs
  // the caller's own session, where the server's isolation gives each token one
  const conn = supervisor?.connectionFor(server, callerKey(ctx.caller), config.isolation)
  if (!supervisor || !conn) return { kind: 'failed', error: `no live upstream connection for server "${server}" in this toolgate process` }
  return record.forward({ runtime: supervisor.instance, callId }, async (withheld): Promise<CallOutcome> => {
    const signals = [...(ctx.signals ?? []), withheld]
    try {
      const asker = { requestId: ctx.requestId, actor: ctx.caller.name, tier: ctx.caller.tier, target: `${server}:${tool}` }
      return { kind: 'answered', result: await conn.callTool(tool, args, { timeoutMs, onProgress: ctx.progress, onAsk: ctx.ask, onLog: ctx.log, signals, meta: ctx.meta, asker }) }
    } catch (e) {
      if (aborted(signals)) return { kind: 'cancelled' }
      const answered = upstreamError(e)
      if (answered) return { kind: 'rejected', ...answered }
      if (isTimeout(e)) {
        return { kind: 'failed', error: `the call timed out after ${timeoutMs / 1000} s without a result or progress: that is server "${server}"'s call timeout. Raise it with: toolgate upstream set ${server} --call-timeout 30m (or on the server's dashboard page)` }
      }
      return { kind: 'failed', error: `the upstream call failed: ${describeConnectionError(e)}` }
    }
  })
}

const aborted = (signals: CallContext['signals']) => signals?.some((s) => s?.aborted) ?? false

const POLL_MS = 200
const WAIT_PROGRESS_MS = 5_000
const DEFAULT_CALL_TIMEOUT_MS = 600_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * A call of a tool under call approval: open (or join) the approval request for this exact
 * call, then wait up to the configured time for the operator. Approved, it runs once — by
 * whichever waiter claims it — and every waiter gets that one result. The gate was asked before
 * the wait and is asked again by the waiter about to run it (one gate, at the moment of effect):
 * a tool changed, blocked or disabled meanwhile, or a caller revoked or narrowed, refuses it,
 * and every waiter gets that refusal.
 */
async function heldCall(ctx: CallContext, server: string, tool: string, args: Record<string, unknown>, supervisor: Supervisor | undefined, config: UpstreamConfig, record: CallRecorder): Promise<CallOutcome> {
  const { call } = await requestCall(ctx.db, { server, tool, args, caller: ctx.caller.name, callerId: callerKey(ctx.caller), requestId: ctx.requestId, profile: ctx.profile })
  const started = Date.now()
  const deadline = started + readSettings(ctx.db).callApprovalWaitMs
  let reported = started
  for (;;) {
    const c = callById(ctx.db, call.id)!
    if (c.status === 'done') return { kind: 'answered', result: c.result as CallToolResult, callId: c.id }
    if (c.status === 'refused') return { kind: 'refused', verdict: c.result as unknown as UnavailableResult }
    if (c.status === 'denied' || c.status === 'expired') return { kind: c.status, call: c }
    if (c.status === 'approved' && await claimCall(ctx.db, c.id)) {
      const refusal = callGate(ctx.db, c, ctx.caller, ctx.profile)
      if (refusal) {
        await refuseCall(ctx.db, c.id, refusal)
        return { kind: 'refused', verdict: refusal }
      }
      const outcome = await callUpstream(ctx, server, tool, args, supervisor, config, record, c.id)
      const result: CallToolResult = outcome.kind === 'answered' ? outcome.result
        : { isError: true, content: [{ type: 'text', text: failure(outcome) ?? 'the caller cancelled the call while it ran' }] }
      await finishCall(ctx.db, c.id, result)
      return outcome.kind === 'cancelled' ? outcome : { kind: 'answered', result, callId: c.id }
    }
    // the request stays open: the client went away, or the wait is over
    if (aborted(ctx.signals)) return { kind: 'cancelled' }
    if (Date.now() >= deadline) return { kind: 'held', call: c }
    if (ctx.progress && Date.now() - reported >= WAIT_PROGRESS_MS) {
      reported = Date.now()
      ctx.progress({ progress: reported - started, message: `waiting for an operator to approve this call (call id ${c.id})` })
    }
    await sleep(POLL_MS)
  }
}

/**
 * Gated dispatch of tools/call. The gate IS the preflight evaluator (same snapshot reads, same
 * classifier, same scope), so a call is refused if and only if the preflight for that id is not
 * ready, with the same reason. Only then does the call reach the live upstream connection.
 * Every call is on the record under the caller's request_id before it is answered (contract §12).
 */
export async function dispatchToolCall(ctx: CallContext, id: string, args: Record<string, unknown> | undefined, supervisor: Supervisor | undefined = runningSupervisor()): Promise<CallOutcome> {
  // a name no tool can have is a request error, judged and recorded as nothing (ids are bounded on every surface)
  const fault = idBoundsFault(id)
  if (fault) throw badRequest(`name: ${fault}`)
  const verdict = evaluateNow(ctx.db, ctx.caller, { ids: [id], profile: ctx.profile }).tools[0]
  const parsed = parseToolId(id)
  // a ready verdict means a well-formed id on a configured server
  const { server, tool } = 'malformed' in parsed ? { server: undefined, tool: '' } : parsed
  const record = new CallRecorder(ctx.db, { requestId: ctx.requestId, actor: ctx.caller.name, tier: ctx.caller.tier, server, target: verdict.id, args, taskId: ctx.taskId })
  let outcome: CallOutcome
  if (verdict.status === 'unavailable') {
    outcome = { kind: 'refused', verdict }
  } else {
    if (server === undefined || !supervisor?.connection(server)) {
      // ready by its published state, but nothing in this process can reach it
      // (a state-file server without a transport, or the connection just dropped)
      outcome = { kind: 'refused', verdict: unavailable(verdict.id, 'server_unhealthy', `no live upstream connection for server "${server ?? ''}" in this toolgate process`, { server: server ?? '', tool }) }
    } else {
      const config = callConfig(ctx.db, server)
      const upstream: UpstreamConfig = { timeoutMs: config?.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, isolation: config?.isolation ?? 'auto' }
      outcome = config?.callApprovalTools.includes(tool)
        ? await heldCall(ctx, server, tool, args ?? {}, supervisor, upstream, record)
        : await callUpstream(ctx, server, tool, args, supervisor, upstream, record)
    }
  }
  noteCallGate(ctx.requestId, outcome.kind === 'refused' ? outcome.verdict : undefined, heldDecision(outcome))
  await record.end({
    outcome: outcomeName(outcome),
    ...(outcome.kind === 'refused' ? { reason: outcome.verdict.reason } : failure(outcome) !== undefined ? { error: failure(outcome) } : {}),
  }, 'call' in outcome ? outcome.call.id : outcome.kind === 'answered' ? outcome.callId : undefined)
  return outcome
}
