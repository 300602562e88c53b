import 'server-only'
import type { JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'

/** A call still running after this long streams, so its keep-alives reach proxies and client timeouts. */
const UPGRADE_AFTER_MS = 10_000
const KEEP_ALIVE_MS = 15_000

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' }
const frame = (message: JSONRPCMessage) => `event: message\ndata: ${JSON.stringify(message)}\n\n`
const isResponse = (message: JSONRPCMessage) => 'result' in message || 'error' in message

/**
 * 2025-11-25 answers for a tools/call, as 2026-07-28's 'auto' mode answers: one JSON body when
 * the result is all there is, an SSE stream from the first message the call sends before it
 * (progress, a log message, an elicitation) or once it has run for 10 s. The stream costs a
 * client several milliseconds per call to set up and parse; most calls send nothing but their
 * result. `transport` must be in JSON mode; its sends are taken over here, before it is connected.
 * `upgraded` settles with the stream's response if the exchange upgrades.
 */
export function jsonUntilStreamed(transport: WebStandardStreamableHTTPServerTransport): { upgraded: Promise<Response>; done: () => void } {
  const send = transport.send.bind(transport)
  const encoder = new TextEncoder()
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined
  let keepAlive: NodeJS.Timeout | undefined
  let finished = false
  let settle!: (r: Response) => void
  const upgraded = new Promise<Response>((r) => (settle = r))

  const done = () => {
    finished = true
    clearTimeout(late)
    clearInterval(keepAlive)
    try { stream?.close() } catch { /* already closed or cancelled */ }
  }
  const write = (text: string) => { try { stream?.enqueue(encoder.encode(text)) } catch { /* the client left */ } }
  const upgrade = () => {
    if (stream || finished) return
    settle(new Response(new ReadableStream<Uint8Array>({ start: (c) => void (stream = c), cancel: done }), { status: 200, headers: SSE_HEADERS }))
    keepAlive = setInterval(() => write(': keepalive\n\n'), KEEP_ALIVE_MS).unref()
  }
  const late = setTimeout(upgrade, UPGRADE_AFTER_MS).unref()

  transport.send = async (message, options) => {
    if (!stream && isResponse(message)) {
      done()
      return send(message, options)
    }
    upgrade()
    write(frame(message))
    if (isResponse(message)) {
      done()
      // lets the transport forget the request (its JSON answer is no longer awaited)
      await send(message, options)
    }
  }
  return { upgraded, done }
}
