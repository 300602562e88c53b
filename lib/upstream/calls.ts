import { ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, SdkError, SdkErrorCode, specTypeSchemas, type CallToolResult, type Client, type CreateMessageRequest, type ElicitRequest, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/client'
import type { z } from 'zod'
import { createdTaskSchema, detailedTaskSchema as detailedTask, RAW_RESULT, upstreamTaskSchema as upstreamTask } from '@/lib/schemas/upstream'
import { following, sleep } from '@/lib/signals'
import { mcpClientOp, type UpstreamPeer } from '@/lib/telemetry/mcp-client'
import type { Root } from '@/db/schema'
import type { Asker, AskNote } from '@/lib/core/activity'
import type { Sampling } from '@/lib/core/state'
import type { OnStreamRequest } from './stream-requests'
import { TASK_HANDLE } from './task-handles'
import type { Log } from './transport'

/**
 * What a server asks its client during a call, put to the caller: an elicitation (a question for
 * the person) or a sampling (a completion by the caller's model). Its answer is the caller's result.
 */
export type ServerAsk = { method: 'elicitation/create'; params: ElicitRequest['params'] } | { method: 'sampling/createMessage'; params: CreateMessageRequest['params'] }
/** Puts a server's request to the caller; `ended` aborts when the call is over. It rejects with CannotAsk when its client cannot be asked. */
export type AskCaller = (ask: ServerAsk, ended: AbortSignal) => Promise<Record<string, unknown>>

/** The caller's client cannot be put this question (it does not declare it can answer, or has too many open): toolgate settles it unasked. */
export class CannotAsk extends Error {}

/**
 * How a connection settles what its server asks: its sampling setting, and where each question's
 * note goes (its record), with the caller whose call it was (undefined: it names no call).
 */
export interface AskPolicy {
  /** the server's sampling setting as it stands when a question is decided (a change holds at once, before the reconnect that stops declaring it) */
  sampling: () => Sampling
  note: (note: AskNote, asker: Asker | undefined) => void
}

/** The error a server hears for a sampling request an operator withholds from it. */
const WITHHELD = 'the operator withholds sampling from this server: toolgate does not put its sampling requests to the caller'

/**
 * The one gate for what a server asks during a call, whichever way it came (a server request,
 * or an input_required result): a sampling the server's setting withholds is refused unasked;
 * a question with no caller to put it to (none found, or its client cannot answer) is declined
 * for an elicitation and refused for a sampling; otherwise the caller's answer is the answer.
 * Each question leaves one note (its record) as it is decided.
 */
async function settleAsk(ask: ServerAsk, call: InflightCall | undefined, policy: AskPolicy, unasked: string, log?: Log): Promise<Record<string, unknown>> {
  const sampling = ask.method === 'sampling/createMessage'
  const note = (asked: boolean, outcome: AskNote['outcome']) => policy.note(
    { ask: sampling ? 'sampling' : 'elicitation', ...(sampling ? {} : { mode: ask.params.mode === 'url' ? 'url' as const : 'form' as const }), asked, outcome }, call?.asker)
  if (sampling && policy.sampling() === 'withhold') {
    note(false, 'withheld')
    log?.('event', 'withheld a sampling request: the operator withholds sampling from this server')
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, WITHHELD)
  }
  let why = unasked
  if (call?.onAsk) {
    try {
      const answer = await call.onAsk(ask)
      note(true, sampling ? 'answered' : answer.action === 'accept' ? 'accepted' : answer.action === 'decline' ? 'declined' : 'cancelled')
      return answer
    } catch (e) {
      if (!(e instanceof CannotAsk)) {
        // the caller's client refused, or never answered: the upstream hears it as an error
        note(true, sampling ? 'refused' : 'cancelled')
        throw e
      }
      why = e.message
    }
  }
  note(false, sampling ? 'refused' : 'declined')
  if (!sampling) {
    log?.('event', `declined an elicitation: ${why}`)
    return { action: 'decline' }
  }
  log?.('event', `refused a sampling request: ${why}`)
  throw new ProtocolError(ProtocolErrorCode.InternalError, `toolgate has no caller to put this sampling request to: ${why}`)
}

/** How one call may run: its timeout (restarted by progress), where progress goes, what cancels it. */
export interface CallOptions {
  timeoutMs: number
  onProgress?: (p: Progress) => void
  /** the caller's answer to what the server asks during the call (absent: an elicitation is declined, a sampling refused) */
  onAsk?: AskCaller
  /** log messages the server sends during the call */
  onLog?: (params: LoggingMessageNotification['params']) => void
  /** any of these aborting stops the call (followed here, so each layer above need not make a signal of its own) */
  signals?: readonly (AbortSignal | undefined)[]
  /** the client's request _meta, passed on (the progress token is toolgate's own) */
  meta?: Record<string, unknown>
  /** whose call it is, for the records of what the server asks during it */
  asker?: Asker
}

export const TERMINAL_TASK_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled'])
const UPSTREAM_TASK_TTL_MS = 24 * 60 * 60 * 1000
/** How long an abandoned request still counts as in flight (the server may still be working on it). */
const ABANDONED_LINGER_MS = 10_000

/**
 * A request in flight: where what the server sends during it goes (nowhere once abandoned), and
 * what tells that it is for this call: the progress token toolgate gave it, the upstream task it
 * runs as, the server requests its response stream carried (HTTP).
 */
export interface InflightCall {
  onAsk?: (ask: ServerAsk) => Promise<Record<string, unknown>>
  asker?: Asker
  onLog?: CallOptions['onLog']
  token?: string
  taskId?: string
  serverRequests?: Set<string | number>
}
/** The longest a timer can wait (setTimeout's limit): the SDK's own timeout, out of the way of toolgate's. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * The requests in flight on one connection (and, for a while, ones abandoned): where what the
 * server sends during them (elicitations, log messages, progress) goes.
 */
export class InflightCalls {
  private calls = new Set<InflightCall>()
  /** progress listeners of the calls in flight, by the progress token toolgate gave each */
  private progress = new Map<string, (p: Progress) => void>()
  private issued = 0

  /** The progress token for the next call: toolgate's own, one per call of this connection. */
  nextToken(): string {
    return `tg_${++this.issued}`
  }

  add(call: InflightCall, onProgress?: (p: Progress) => void): void {
    this.calls.add(call)
    if (call.token && onProgress) this.progress.set(call.token, onProgress)
  }

  /** Progress the server reported for the call given `token`. */
  progressed(token: string, p: Progress): void {
    this.progress.get(token)?.(p)
  }

  /**
   * The call a server's elicitation or log message belongs to: the one running the task its
   * `_meta` names (related-task), or (HTTP) the one whose response stream carried it; failing
   * both, the one request in flight, when there is only one (stdio says nothing more).
   */
  callFor(meta: Record<string, unknown> | undefined, requestId?: string | number): InflightCall | undefined {
    const taskId = (meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined)?.taskId
    for (const call of this.calls) {
      if (typeof taskId === 'string' && call.taskId === taskId) return call
      if (requestId !== undefined && call.serverRequests?.has(requestId)) return call
    }
    return this.calls.size === 1 ? this.calls.values().next().value : undefined
  }

  /** A server request arrived on the response stream of the call given `token` (HTTP). */
  readonly onStreamRequest: OnStreamRequest = (requestId, token) => {
    for (const call of this.calls) if (call.token === token) (call.serverRequests ??= new Set()).add(requestId)
  }

  /**
   * A request is over. One the server answered leaves at once; one abandoned (cancelled, timed
   * out) may still be running upstream, so it stays counted, without a caller, for a while:
   * what the server sends for it must not be taken for another caller's.
   */
  release(call: InflightCall, answered: boolean): void {
    if (call.token) this.progress.delete(call.token)
    if (answered) return void this.calls.delete(call)
    call.onAsk = undefined
    call.onLog = undefined
    setTimeout(() => this.calls.delete(call), ABANDONED_LINGER_MS).unref()
  }

  /** What the server asks (an elicitation, a sampling) in a request of its own: settled for the call it is for (settleAsk). */
  ask(ask: ServerAsk, requestId: string | number, policy: AskPolicy, log: Log): Promise<Record<string, unknown>> {
    const call = this.callFor(ask.params._meta, requestId)
    const why = call ? 'its call\'s client cannot be asked' : this.calls.size ? `${this.calls.size} calls are in flight, and nothing says which one it is for` : 'no call is in flight'
    return settleAsk(ask, call, policy, why, log)
  }
}

/**
 * One tools/call on `client`, its result passed through as given; a tool the server runs only as
 * a task (`asTask`, 2025-11-25) is run as one, and a task the server makes of the call (the Tasks
 * extension, 2026-07-28) is followed, so every client can call it. Runs out after `opts.timeoutMs`
 * without progress (a RequestTimeout error); what the connection makes of a failure is its own.
 */
export async function callTool(client: Client, inflight: InflightCalls, upstream: { peer(): UpstreamPeer; readonly answers: AnswerSpec }, tool: string, args: Record<string, unknown> | undefined, opts: CallOptions, asTask: boolean): Promise<CallToolResult> {
  // toolgate keeps the timeout itself (restarted by progress) and its own progress tokens: the
  // SDK drops a progress notification that arrives in the same read as the result, and an
  // agent should see every step
  const token = inflight.nextToken()
  // one signal stops the call: the caller's, or this call's own clock running out
  const stop = following(...(opts.signals ?? []))
  let timedOut = false
  let timer: NodeJS.Timeout | undefined
  const restartClock = () => {
    clearTimeout(timer)
    timer = setTimeout(() => { timedOut = true; stop.controller.abort() }, opts.timeoutMs)
  }
  restartClock()
  const progressed = (p: Progress) => {
    restartClock()
    opts.onProgress?.(p)
  }
  // a question waits for a person (or the caller's model): the call's clock stops meanwhile, and the
  // question lapses with the call (made only when one comes: an abort costs, and most calls ask nothing)
  let ended: AbortController | undefined
  const call: InflightCall = {
    token,
    asker: opts.asker,
    onLog: opts.onLog,
    onAsk: opts.onAsk && (async (ask) => {
      clearTimeout(timer)
      ended ??= new AbortController()
      try {
        return await opts.onAsk!(ask, ended.signal)
      } finally {
        if (!ended.signal.aborted) restartClock()
      }
    }),
  }
  inflight.add(call, progressed)
  const signal = stop.controller.signal
  // Object.assign, not a spread that then gains a key: on Node 20 that copy takes V8's slow path (µs a call)
  const params = { name: tool, arguments: args ?? {}, _meta: Object.assign({}, opts.meta, { progressToken: token }) as Record<string, unknown> }
  // its CLIENT span and duration; the span's context rides in params._meta (undefined while telemetry is off)
  const op = mcpClientOp(upstream, 'tools/call', tool, params)
  try {
    const spec = upstream.answers
    const answer: Record<string, unknown> = asTask ? await runTask(client, params, progressed, signal, call) : await requestAnswering(client, 'tools/call', params, { timeoutMs: MAX_TIMER_MS, signal }, call, spec)
    const handle = answer[TASK_HANDLE] as Record<string, unknown> | undefined
    const result = handle ? await followTask(client, handle, progressed, signal, call, spec) : answer as CallToolResult
    op?.end(result)
    return result
  } catch (e) {
    op?.end(undefined, timedOut ? new SdkError(SdkErrorCode.RequestTimeout, 'timed out') : e)
    if (timedOut) throw new SdkError(SdkErrorCode.RequestTimeout, `the call took longer than ${opts.timeoutMs} ms without progress`)
    throw e
  } finally {
    clearTimeout(timer)
    stop.release()
    ended?.abort()
    inflight.release(call, !signal.aborted)
  }
}

/** What answering a server's input requests needs of its connection: the roots it is given, and how its questions are settled. */
export interface AnswerSpec { roots: Root[]; asks: AskPolicy }

/** What a 2026-07-28 server asks for in an input_required result (or a task, in its inputRequests): each entry a request the client would have been sent. */
type InputRequests = Record<string, { method?: string; params?: Record<string, unknown> }>

/**
 * A request that may answer input_required (2026-07-28: tools/call, prompts/get, resources/read):
 * it is retried with the answers and the state the server gave, as often as it asks, each leg
 * within `timeoutMs`. An elicitation in it is this request's own (nothing to attribute): it goes
 * to the caller as any elicitation during a call does, or is declined when the caller cannot
 * answer. On 2025-11-25 the first answer is the result.
 */
export async function requestAnswering(client: Client, method: string, params: Record<string, unknown>, opts: { timeoutMs: number; signal?: AbortSignal }, call: InflightCall, spec: AnswerSpec): Promise<Record<string, unknown>> {
  for (let request = params; ;) {
    const result = await client.request({ method, params: request }, RAW_RESULT, { timeout: opts.timeoutMs, signal: opts.signal, allowInputRequired: true }) as Record<string, unknown>
    if (result.resultType !== 'input_required') return result
    const inputResponses = await answerInputs((result.inputRequests ?? {}) as InputRequests, call, spec)
    request = { ...params, inputResponses, ...(result.requestState !== undefined ? { requestState: result.requestState } : {}) }
  }
}

/** Each of a server's input requests answered as toolgate answers the same request sent on its own (2025-11-25). */
async function answerInputs(asked: InputRequests, call: InflightCall, spec: AnswerSpec): Promise<Record<string, unknown>> {
  return Object.fromEntries(await Promise.all(Object.entries(asked).map(async ([key, r]) => [key, await answerInput(r, call, spec)] as const)))
}

async function answerInput(r: InputRequests[string], call: InflightCall, spec: AnswerSpec): Promise<unknown> {
  if (r.method === 'elicitation/create' || r.method === 'sampling/createMessage') {
    // checked as the SDK checks one sent on its own (2025-11-25): nothing malformed reaches the caller
    // (an elicitation by its mode, so a fault is named by its field rather than as a mismatch of both modes)
    const schema = r.method === 'sampling/createMessage' ? 'CreateMessageRequestParams' : r.params?.mode === 'url' ? 'ElicitRequestURLParams' : 'ElicitRequestFormParams'
    const checked = specTypeSchemas[schema]['~standard'].validate(r.params)
    const what = r.method === 'sampling/createMessage' ? 'a sampling request' : 'an elicitation'
    if (checked.issues) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the upstream asked ${what} toolgate does not pass on: ${checked.issues.map((i) => `${(i.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)).join('.') || 'params'}: ${i.message}`).join('; ')}`)
    return settleAsk({ method: r.method, params: checked.value } as ServerAsk, call, spec.asks, 'the caller\'s client cannot be asked')
  }
  if (r.method === 'roots/list') return { roots: spec.roots }
  throw new SdkError(SdkErrorCode.MethodNotSupportedByProtocolVersion, `the upstream asked for "${r.method}" during the call, which toolgate does not relay`)
}

/** A task's news: a new message, else a new status under the same message (e.g. completed). */
function taskNews(before: { status: string; statusMessage?: string }, now: { status: string; statusMessage?: string }): string | undefined {
  if (now.statusMessage !== before.statusMessage) return now.statusMessage ?? now.status
  return now.status !== before.status ? now.status : undefined
}

/** The task is toolgate's business with the upstream: its id in a result's _meta means nothing to the caller. */
function withoutTaskMeta(result: Record<string, unknown>): CallToolResult {
  const { _meta, ...rest } = result as CallToolResult
  const { [RELATED_TASK_META_KEY]: _task, ...meta } = _meta ?? {}
  return { ...rest, ...(Object.keys(meta).length ? { _meta: meta } : {}) } as CallToolResult
}

/** Requests of a task's, each answer read with its schema (every other field kept); `signal` stops them. */
const asking = (client: Client, signal: AbortSignal) => async <T extends z.ZodType>(method: string, p: Record<string, unknown>, schema: T) =>
  schema.parse(await client.request({ method, params: p }, RAW_RESULT, { timeout: MAX_TIMER_MS, signal })) as z.infer<T>

/** A task its caller stopped following is cancelled upstream (best effort: the caller has gone). */
const cancelTask = (client: Client, taskId: string) => void client.request({ method: 'tasks/cancel', params: { taskId } }, RAW_RESULT, { timeout: 5_000 }).catch(() => undefined)

/** The wait before the next poll: as the server suggests, within 0.1-2 s. */
const pollWait = (suggestedMs: number | undefined) => Math.min(Math.max(suggestedMs ?? 1_000, 100), 2_000)

/**
 * A tools/call the server answered with a task of the Tasks extension (2026-07-28): follow it
 * with tasks/get (each piece of news is progress) until it ends; what it asks (input_required)
 * is asked of the caller once per request key and answered with tasks/update. Its result (or its
 * JSON-RPC error) is the call's. Stopping early cancels the task upstream.
 */
async function followTask(client: Client, handle: Record<string, unknown>, progressed: (p: Progress) => void, signal: AbortSignal, call: InflightCall, spec: AnswerSpec): Promise<CallToolResult> {
  const ask = asking(client, signal)
  let task = detailedTask.parse(handle)
  const taskId = task.taskId
  call.taskId = taskId
  const answered = new Set<string>()
  let steps = 0
  try {
    for (;;) {
      if (task.status === 'completed') return withoutTaskMeta(task.result ?? {})
      if (task.status === 'failed') throw new ProtocolError(task.error?.code ?? -32603, task.error?.message ?? task.statusMessage ?? 'the upstream task failed', task.error?.data)
      if (task.status === 'cancelled') return { isError: true, content: [{ type: 'text', text: `the upstream cancelled the task${task.statusMessage ? `: ${task.statusMessage}` : ''}` }] }
      // a poll repeats what is still outstanding: each request is asked once
      const fresh = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key))
      if (task.status === 'input_required' && fresh.length) {
        for (const [key] of fresh) answered.add(key)
        await ask('tasks/update', { taskId, inputResponses: await answerInputs(Object.fromEntries(fresh) as InputRequests, call, spec) }, RAW_RESULT)
      }
      await sleep(pollWait(task.pollIntervalMs), signal)
      const now = await ask('tasks/get', { taskId }, detailedTask)
      const news = taskNews(task, now)
      if (news !== undefined) progressed({ progress: ++steps, message: news })
      task = now
    }
  } catch (e) {
    if (signal.aborted) cancelTask(client, taskId)
    throw e
  }
}

/**
 * A call of a tool the server runs only as a task (execution.taskSupport "required"): create
 * the task, follow it with tasks/get (each new status is progress), then fetch its result.
 * Stopping early cancels the task upstream.
 */
async function runTask(client: Client, params: Record<string, unknown>, progressed: (p: Progress) => void, signal: AbortSignal, call: InflightCall): Promise<CallToolResult> {
  const ask = asking(client, signal)
  // the upstream forgets a task its ttl after creating it, finished or not: ask for long enough
  let task = (await ask('tools/call', { ...params, task: { ttl: UPSTREAM_TASK_TTL_MS } }, createdTaskSchema)).task
  const taskId = task.taskId
  // what the server sends for the task names it (related-task): it is this call's
  call.taskId = taskId
  let steps = 0
  try {
    // a task that needs input asks through tasks/result (which waits for the end): go there at once
    while (!TERMINAL_TASK_STATES.has(task.status) && task.status !== 'input_required') {
      await sleep(pollWait(task.pollInterval), signal)
      const now = await ask('tasks/get', { taskId }, upstreamTask)
      const news = taskNews(task, now)
      if (news !== undefined) progressed({ progress: ++steps, message: news })
      task = now
    }
    if (task.status === 'cancelled') return { isError: true, content: [{ type: 'text', text: `the upstream cancelled the task${task.statusMessage ? `: ${task.statusMessage}` : ''}` }] }
    return withoutTaskMeta(await ask('tasks/result', { taskId }, RAW_RESULT))
  } catch (e) {
    if (signal.aborted) cancelTask(client, taskId)
    throw e
  }
}
