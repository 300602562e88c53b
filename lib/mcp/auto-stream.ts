import 'server-only'
import type { ServerResponse } from 'node:http'
import type { JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'

/** A call still running after this long streams, so its keep-alives reach proxies and client timeouts. */
const UPGRADE_AFTER_MS = 10_000
const KEEP_ALIVE_MS = 15_000

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' }
const frame = (message: JSONRPCMessage) => `event: message\ndata: ${JSON.stringify(message)}\n\n`
export const isResponse = (message: JSONRPCMessage) => 'result' in message || 'error' in message

/** Where one exchange's answer goes: one JSON body, or, once upgraded, an event stream. */
interface AnswerSink {
  /** the result is all there is: one JSON body */
  json(message: JSONRPCMessage): Promise<void> | void
  /** from now on the answer is an event stream (its headers go out) */
  open(): void
  write(text: string): void
  /** the stream is over; `last` is the response it ended with, if it did */
  end(last?: JSONRPCMessage): Promise<void> | void
}

/**
 * 2025-11-25 answers for a tools/call, as 2026-07-28's 'auto' mode answers: one JSON body when
 * the result is all there is, an SSE stream from the first message the call sends before it
 * (progress, a log message, an elicitation) or once it has run for 10 s. The stream costs a
 * client several milliseconds per call to set up and parse; most calls send nothing but their
 * result. `send` takes every message of the exchange in order; `done` ends it early (the client left).
 */
function autoStream(sink: AnswerSink): { send: (message: JSONRPCMessage) => Promise<void>; done: () => void } {
  let streaming = false
  let finished = false
  let keepAlive: NodeJS.Timeout | undefined
  const stop = () => {
    finished = true
    clearTimeout(late)
    clearInterval(keepAlive)
  }
  const upgrade = () => {
    if (streaming || finished) return
    streaming = true
    sink.open()
    keepAlive = setInterval(() => sink.write(': keepalive\n\n'), KEEP_ALIVE_MS).unref()
  }
  const late = setTimeout(upgrade, UPGRADE_AFTER_MS).unref()
  return {
    async send(message) {
      if (finished) return
      if (!streaming && isResponse(message)) {
        stop()
        return sink.json(message)
      }
      upgrade()
      sink.write(frame(message))
      if (isResponse(message)) {
        stop()
        await sink.end(message)
      }
    },
    done() {
      if (finished) return
      stop()
      if (streaming) void sink.end()
    },
  }
}

/**
 * The SDK transport's exchange answered as autoStream decides. `transport` must be in JSON mode;
 * its sends are taken over here, before it is connected. `upgraded` settles with the stream's
 * response if the exchange upgrades.
 */
export function jsonUntilStreamed(transport: WebStandardStreamableHTTPServerTransport): { upgraded: Promise<Response>; done: () => void } {
  const send = transport.send.bind(transport)
  const encoder = new TextEncoder()
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined
  let settle!: (r: Response) => void
  const upgraded = new Promise<Response>((r) => (settle = r))
  const auto = autoStream({
    json: (message) => send(message),
    open: () => settle(new Response(new ReadableStream<Uint8Array>({ start: (c) => void (stream = c), cancel: () => auto.done() }), { status: 200, headers: SSE_HEADERS })),
    write: (text) => { try { stream?.enqueue(encoder.encode(text)) } catch { /* the client left */ } },
    async end(last) {
      try { stream?.close() } catch { /* already closed or cancelled */ }
      // lets the transport forget the request (its JSON answer is no longer awaited)
      if (last) await send(last)
    },
  })
  transport.send = (message) => auto.send(message)
  return { upgraded, done: auto.done }
}

/**
 * A 2026-07-28 call's answer, as autoStream answers 2025-11-25's: the SDK's 'auto' mode streams
 * only once the call sends something, so a long call that sends nothing would send no headers
 * until its result (Node's fetch gives up waiting for headers after 300 s). Still unanswered
 * after 10 s, the answer becomes an event stream of toolgate's, with keep-alives, that carries on
 * whatever the SDK answers: its stream's events as they come, or its one JSON body as one event.
 */
export function streamWhenLate(answered: Promise<Response>): Promise<Response> {
  return new Promise((resolve, reject) => {
    const late = setTimeout(() => resolve(new Response(carry(answered), { status: 200, headers: SSE_HEADERS })), UPGRADE_AFTER_MS).unref()
    answered.then((r) => { clearTimeout(late); resolve(r) }, (e) => { clearTimeout(late); reject(e) })
  })
}

function carry(answered: Promise<Response>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let keepAlive: NodeJS.Timeout | undefined
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  let left = false
  return new ReadableStream<Uint8Array>({
    start(c) {
      const put = (bytes: Uint8Array) => { if (!left) c.enqueue(bytes) }
      keepAlive = setInterval(() => put(encoder.encode(': keepalive\n\n')), KEEP_ALIVE_MS).unref()
      void (async () => {
        try {
          const r = await answered
          if ((r.headers.get('content-type') ?? '').includes('text/event-stream') && r.body) {
            reader = r.body.getReader()
            for (let next = await reader.read(); !next.done; next = await reader.read()) put(next.value)
          } else {
            put(encoder.encode(frame(await r.json() as JSONRPCMessage)))
          }
        } catch { /* the SDK answers its failures as messages; what cannot be read ends the stream */ }
        clearInterval(keepAlive)
        if (!left) c.close()
      })()
    },
    cancel() {
      left = true
      clearInterval(keepAlive)
      void reader?.cancel().catch(() => undefined)
    },
  })
}

/**
 * One exchange's answer written straight onto the node response, under its X-Request-Id: a
 * call that may stream answers as autoStream decides; anything else answers its result as one
 * JSON body, and what it sends before the result is dropped (as the SDK's JSON mode drops it).
 */
export function answerOnNode(res: ServerResponse, requestId: string, mayStream: boolean, responded?: (message: JSONRPCMessage) => void): { send: (message: JSONRPCMessage) => Promise<void>; done: () => void } {
  const gone = () => res.destroyed || res.writableEnded
  const json = (message: JSONRPCMessage) => {
    if (gone()) return
    const body = JSON.stringify(message)
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId, 'content-length': Buffer.byteLength(body) }).end(body)
  }
  const answer = mayStream ? streamOrJson(res, requestId, json, gone) : { send: async (message: JSONRPCMessage) => { if (isResponse(message)) json(message) }, done: () => undefined }
  // the response, whichever way it goes out, is what telemetry learns the outcome from
  return responded ? { send: (message) => { if (isResponse(message)) responded(message); return answer.send(message) }, done: answer.done } : answer
}

function streamOrJson(res: ServerResponse, requestId: string, json: (message: JSONRPCMessage) => void, gone: () => boolean) {
  return autoStream({
    json,
    // a stream's headers go out at once: the client knows the call is alive before its first event
    open: () => { if (!gone()) res.writeHead(200, { ...SSE_HEADERS, 'x-request-id': requestId }).flushHeaders() },
    write: (text) => { if (!gone()) res.write(text) },
    end: () => { if (!gone()) res.end() },
  })
}
