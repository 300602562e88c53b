import 'server-only'
import { randomBytes } from 'node:crypto'
import { inputRequired, type ElicitRequest, type ElicitResult, type InputRequiredResult, type LoggingMessageNotification, type Progress, type Result } from '@modelcontextprotocol/server'
import { elicitResultSchema as elicitResult } from '@/lib/schemas/mcp'
import { invalidParams } from './errors'

/**
 * Elicitations an upstream sends during a call, carried to the caller that made the call.
 * The endpoint is stateless, so the answer arrives in a later HTTP request and is matched here:
 *
 * - 2025-11-25: the elicitation goes out as a server request on the call's SSE stream; the
 *   client POSTs its response, which `answerFromClient` hands to the waiting call.
 * - 2026-07-28: the call answers `input_required` with the elicitation and a requestState; the
 *   client retries the call with its answer, and `resume` continues the same upstream call.
 *
 * Either way an answer is accepted only from the caller that made the call, and a call nobody
 * answers within ELICIT_WAIT_MS is cancelled for the upstream (its elicitation is answered "cancel").
 */
/** What an upstream asks, and what it gets back (the upstream client's types: it is their question) */
export type ElicitParams = ElicitRequest['params']
const ELICIT_WAIT_MS = 10 * 60 * 1000

/** What a client answered, as the upstream expects it; anything else counts as "cancel". */
const asElicitResult = (v: unknown): ElicitResult => {
  const r = elicitResult.safeParse(v)
  return r.success ? { action: r.data.action, ...(r.data.content ? { content: r.data.content as ElicitResult['content'] } : {}) } : { action: 'cancel' }
}

const nonce = () => randomBytes(12).toString('base64url')

// ---- 2025-11-25: a server request on the call's stream --------------------------------------

const waiting = new Map<string, (answer: ElicitResult) => void>()
const waitKey = (caller: string, id: unknown) => `${caller}\u0000${JSON.stringify(id)}`

/**
 * Ask over an open SSE stream: `send` writes the request on it; the answer arrives through
 * answerFromClient. The client leaving, the call ending, or the wait running out answers "cancel".
 */
export async function askOverStream(caller: string, send: (request: object) => Promise<void>, params: ElicitParams, closed: AbortSignal): Promise<ElicitResult> {
  if (closed.aborted) return { action: 'cancel' }
  const id = `tg-elicit-${nonce()}`
  const key = waitKey(caller, id)
  const answered = new Promise<ElicitResult>((resolve) => waiting.set(key, resolve))
  const timer = setTimeout(() => waiting.get(key)?.({ action: 'cancel' }), ELICIT_WAIT_MS)
  const leave = () => waiting.get(key)?.({ action: 'cancel' })
  closed.addEventListener('abort', leave, { once: true })
  try {
    await send({ jsonrpc: '2.0', id, method: 'elicitation/create', params })
    return await answered
  } catch {
    return { action: 'cancel' } // the stream is gone: nobody can answer
  } finally {
    clearTimeout(timer)
    closed.removeEventListener('abort', leave)
    waiting.delete(key)
  }
}

/** A JSON-RPC response a 2025-11-25 client POSTs: true when it answered one of this caller's elicitations. */
export function answerFromClient(caller: string, body: unknown): boolean {
  const msg = body as { id?: unknown; result?: unknown; error?: unknown } | null
  const resolve = waiting.get(waitKey(caller, msg?.id))
  if (!resolve) return false
  // an error response (e.g. the client has no elicitation handler) declines
  resolve(msg?.error !== undefined ? { action: 'decline' } : asElicitResult(msg?.result))
  return true
}

/** Whether a POSTed body is a JSON-RPC response (a client answering a server request). */
export const isResponse = (body: unknown): boolean => {
  const msg = body as Record<string, unknown> | null
  return !!msg && typeof msg === 'object' && !Array.isArray(msg) && !('method' in msg) && 'id' in msg && ('result' in msg || 'error' in msg)
}

// ---- 2026-07-28: input_required and a retry -------------------------------------------------

type Ask = { kind: 'ask'; params: ElicitParams; answer: (r: ElicitResult) => void; ended: AbortSignal }
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

  constructor(readonly caller: string, readonly method: string) {}

  /**
   * The elicit hook dispatch calls: the question becomes a step; its answer arrives with a retry.
   * A question the call no longer waits for (it ended) lapses: dropped if queued, unparked if asked.
   */
  readonly elicit = (params: ElicitParams, ended: AbortSignal): Promise<ElicitResult> => new Promise((resolve) => {
    const ask: Ask = { kind: 'ask', params, answer: resolve, ended }
    ended.addEventListener('abort', () => {
      this.steps = this.steps.filter((s) => s !== ask)
      if (this.asked === ask) {
        this.asked = undefined
        this.unpark()
      }
      resolve({ action: 'cancel' })
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
        // a caller with too many questions open is not asked another: the upstream hears "decline"
        if ([...parked.values()].filter((c) => c.caller === this.caller).length < MAX_PARKED_PER_CALLER) break
        step.answer({ action: 'decline' })
      }
      if (step.kind === 'failed') throw step.error
      if (step.kind === 'result') return step.result
      this.asked = step
      this.id = `tgc_${nonce()}`
      parked.set(this.id, this)
      // nobody came back: the upstream's question is cancelled, and so is the call
      this.expiry = setTimeout(() => this.abandon(), ELICIT_WAIT_MS)
      // passed on as the upstream asked it (form or URL mode)
      return inputRequired({ inputRequests: { elicit: { method: 'elicitation/create', params: step.params } }, requestState: this.id } as Parameters<typeof inputRequired>[0])
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
    asked?.answer(asElicitResult((responses as Record<string, unknown> | undefined)?.elicit))
    return this.leg(left)
  }

  private unpark(): void {
    clearTimeout(this.expiry)
    if (this.id) parked.delete(this.id)
    this.id = undefined
  }

  private abandon(): void {
    this.unpark()
    this.asked?.answer({ action: 'cancel' })
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
