import 'server-only'
import { randomBytes } from 'node:crypto'
import { inputRequired, ProtocolError, ProtocolErrorCode, specTypeSchemas, type ElicitResult, type InputRequiredResult, type LoggingMessageNotification, type Progress, type Result } from '@modelcontextprotocol/server'
import { elicitResultSchema as elicitResult } from '@/lib/schemas/mcp'
import { CannotAsk, type ServerAsk } from '@/lib/upstream/calls'
import { invalidParams } from './errors'

/**
 * What an upstream asks its client during a call — an elicitation, or a sampling (a completion by
 * the caller's model) — carried to the caller that made the call. The endpoint is stateless, so
 * the answer arrives in a later HTTP request and is matched here:
 *
 * - 2025-11-25: the request goes out as a server request on the call's SSE stream; the client
 *   POSTs its response, which `answerFromClient` hands to the waiting call.
 * - 2026-07-28: the call answers `input_required` with the request and a requestState; the client
 *   retries the call with its answer, and `resume` continues the same upstream call.
 *
 * Either way an answer is accepted only from the caller that made the call, and a call nobody
 * answers within ASK_WAIT_MS is cancelled for the upstream (an elicitation is answered "cancel").
 */
const ASK_WAIT_MS = 10 * 60 * 1000

/** A client's JSON-RPC response to one of these requests; undefined: none came (it left, or the wait ran out). */
type ClientResponse = { result?: unknown; error?: { code?: unknown; message?: unknown } } | undefined

/** What a client answered to an elicitation, as the upstream expects it; anything else counts as "cancel". */
const asElicitResult = (v: unknown): ElicitResult => {
  const r = elicitResult.safeParse(v)
  return r.success ? { action: r.data.action, ...(r.data.content ? { content: r.data.content as ElicitResult['content'] } : {}) } : { action: 'cancel' }
}

/**
 * The caller's answer as the upstream expects it. An elicitation: what the person answered, "decline"
 * for an error (a client without elicitation), "cancel" when nobody answered. A sampling: the
 * client's result, checked; its error, or no answer, is an error to the upstream.
 */
function answerOf(ask: ServerAsk, response: ClientResponse): Record<string, unknown> {
  if (ask.method === 'elicitation/create') return response === undefined ? { action: 'cancel' } : response.error !== undefined ? { action: 'decline' } : asElicitResult(response.result)
  if (response === undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the caller did not answer the sampling request (it went away, or did not come back in time)')
  if (response.error !== undefined) {
    const code = typeof response.error.code === 'number' ? response.error.code : ProtocolErrorCode.InternalError
    throw new ProtocolError(code, `the caller's client refused the sampling request: ${String(response.error.message ?? 'no reason given')}`)
  }
  const checked = specTypeSchemas.CreateMessageResult['~standard'].validate(response.result)
  if (checked.issues) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the caller\'s client answered the sampling request with something that is not a sampling result')
  return checked.value as Record<string, unknown>
}

const nonce = () => randomBytes(12).toString('base64url')

// ---- 2025-11-25: a server request on the call's stream --------------------------------------

const waiting = new Map<string, (response: ClientResponse) => void>()
const waitKey = (caller: string, id: unknown) => `${caller}\u0000${JSON.stringify(id)}`

/**
 * Ask over an open SSE stream: `send` writes the request on it; the answer arrives through
 * answerFromClient. The client leaving, the call ending, or the wait running out is no answer;
 * a caller already gone, or a stream that cannot take the question, was never asked (CannotAsk).
 */
export async function askOverStream(caller: string, send: (request: object) => Promise<void>, ask: ServerAsk, closed: AbortSignal): Promise<Record<string, unknown>> {
  if (closed.aborted) throw new CannotAsk('the caller went away before it was asked')
  const id = `tg-ask-${nonce()}`
  const key = waitKey(caller, id)
  const answered = new Promise<ClientResponse>((resolve) => waiting.set(key, resolve))
  const timer = setTimeout(() => waiting.get(key)?.(undefined), ASK_WAIT_MS)
  const leave = () => waiting.get(key)?.(undefined)
  closed.addEventListener('abort', leave, { once: true })
  let response: ClientResponse
  try {
    try {
      await send({ jsonrpc: '2.0', id, method: ask.method, params: ask.params })
    } catch {
      throw new CannotAsk('the stream to the caller closed before the question could be sent')
    }
    response = await answered
  } finally {
    clearTimeout(timer)
    closed.removeEventListener('abort', leave)
    waiting.delete(key)
  }
  return answerOf(ask, response)
}

/** A JSON-RPC response a 2025-11-25 client POSTs: true when it answered one of this caller's requests. */
export function answerFromClient(caller: string, body: unknown): boolean {
  const msg = body as { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } } | null
  const resolve = waiting.get(waitKey(caller, msg?.id))
  if (!resolve) return false
  resolve(msg?.error !== undefined ? { error: msg.error } : { result: msg?.result })
  return true
}

/** Whether a POSTed body is a JSON-RPC response (a client answering a server request). */
export const isResponse = (body: unknown): boolean => {
  const msg = body as Record<string, unknown> | null
  return !!msg && typeof msg === 'object' && !Array.isArray(msg) && !('method' in msg) && 'id' in msg && ('result' in msg || 'error' in msg)
}

// ---- 2026-07-28: input_required and a retry -------------------------------------------------

type Ask = { kind: 'ask'; request: ServerAsk; answer: (r: ClientResponse) => void; cannot: (why: string) => void; ended: AbortSignal }
type Step = { kind: 'result'; result: Result } | { kind: 'failed'; error: unknown } | Ask
/** Calls one caller may have waiting for its answers at once; each holds an upstream call open. */
const MAX_PARKED_PER_CALLER = 100

/**
 * One upstream call (a tools/call, prompts/get or resources/read: `method`) that may stop to ask
 * its caller something. Steps (a question, or the end) queue here until a leg of the caller's
 * request picks them up.
 */
export class CallInProgress {
  readonly cancel = new AbortController()
  /** where the call's notifications go: the current leg's stream (each retry is a new HTTP exchange); nowhere while parked */
  sinks: { progress?: (p: Progress) => void; log?: (params: LoggingMessageNotification['params']) => void } = {}
  private steps: Step[] = []
  private waiter?: (s: Step) => void
  /** the question the parked call waits on */
  private asked?: Ask
  private expiry?: NodeJS.Timeout
  private id?: string

  /**
   * `declared`: what the caller's client says it can answer (its request's client capabilities).
   * `parks`: a question parks the call where a retry's requestState finds it (parkedCall); a
   * task's call does not park, since its questions are answered through the task (tasks/update).
   */
  constructor(readonly caller: string, readonly method: string, private readonly declared: { elicitation: boolean; sampling: boolean }, private readonly parks = true) {}

  /**
   * The ask hook dispatch calls: the request becomes a step; its answer arrives with a retry (one
   * the client does not declare it can answer is not put to it: CannotAsk). A request the call no
   * longer waits for (it ended) lapses: dropped if queued, unparked if asked.
   */
  readonly ask = (request: ServerAsk, ended: AbortSignal): Promise<Record<string, unknown>> => new Promise((resolve, reject) => {
    const answer = (r: ClientResponse) => { try { resolve(answerOf(request, r)) } catch (e) { reject(e) } }
    const cannot = (why: string) => reject(new CannotAsk(why))
    const capability = request.method === 'sampling/createMessage' ? 'sampling' : 'elicitation'
    if (!this.declared[capability]) return cannot(`the caller's client does not declare ${capability}`)
    const ask: Ask = { kind: 'ask', request, answer, cannot, ended }
    ended.addEventListener('abort', () => {
      this.steps = this.steps.filter((s) => s !== ask)
      // put to the caller and not answered: no answer; never put to it: it was not asked at all
      if (this.asked !== ask) return cannot('the call ended before its caller was asked')
      this.asked = undefined
      this.unpark()
      answer(undefined)
    }, { once: true })
    this.push(ask)
  })

  /** Feed the call's end in. */
  finish(p: Promise<Result>): void {
    p.then((result) => this.push({ kind: 'result', result }), (error: unknown) => this.push({ kind: 'failed', error }))
  }

  private push(s: Step): void {
    if (this.waiter) {
      const w = this.waiter
      this.waiter = undefined
      w(s)
    } else this.steps.push(s)
  }

  /**
   * One leg: wait for the next step while this leg's client is there. A question parks the call
   * under a fresh requestState and answers input_required; the end answers the result.
   */
  async leg(left: AbortSignal): Promise<Result | InputRequiredResult> {
    const onLeave = () => this.abandon()
    left.addEventListener('abort', onLeave, { once: true })
    try {
      let step: Step
      for (;;) {
        step = this.steps.shift() ?? await new Promise<Step>((r) => (this.waiter = r))
        if (step.kind !== 'ask') break
        if (step.ended.aborted) continue
        // a caller with too many questions open is not asked another: the upstream hears "decline" (or, sampling, an error)
        if ([...parked.values()].filter((c) => c.caller === this.caller).length < MAX_PARKED_PER_CALLER) break
        step.cannot(`the caller has ${MAX_PARKED_PER_CALLER} questions open`)
      }
      if (step.kind === 'failed') throw step.error
      if (step.kind === 'result') return step.result
      this.asked = step
      this.id = `tgc_${nonce()}`
      if (this.parks) parked.set(this.id, this)
      // nobody came back: the upstream's question is cancelled, and so is the call
      this.expiry = setTimeout(() => this.abandon(), ASK_WAIT_MS)
      // passed on as the upstream asked it (an elicitation in form or URL mode, a sampling)
      return inputRequired({ inputRequests: { ask: { method: step.request.method, params: step.request.params } }, requestState: this.id } as Parameters<typeof inputRequired>[0])
    } finally {
      left.removeEventListener('abort', onLeave)
      this.sinks = {}
    }
  }

  /** A retry brought the answer: hand it to the upstream and run the next leg. */
  resume(responses: unknown, left: AbortSignal): Promise<Result | InputRequiredResult> {
    this.unpark()
    const asked = this.asked
    this.asked = undefined
    const given = (responses as Record<string, unknown> | undefined)?.ask
    asked?.answer(given === undefined ? undefined : { result: given })
    return this.leg(left)
  }

  private unpark(): void {
    clearTimeout(this.expiry)
    if (this.id) parked.delete(this.id)
    this.id = undefined
  }

  private abandon(): void {
    this.unpark()
    this.asked?.answer(undefined)
    this.asked = undefined
    this.cancel.abort()
  }
}

const parked = new Map<string, CallInProgress>()

/** The parked call a retry's requestState names, for the same caller and method only. */
export function parkedCall(caller: string, method: string, requestState: string): CallInProgress {
  const call = parked.get(requestState)
  // another caller's state (or another request's) is as unknown as an expired one
  if (!call || call.caller !== caller || call.method !== method) throw invalidParams('Invalid or expired requestState: send the request again')
  return call
}
