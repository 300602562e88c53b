/**
 * Which of toolgate's requests a server request came for, over Streamable HTTP: a server sends
 * the requests it makes for one of toolgate's (an elicitation during a call) on that request's own
 * response stream, but the SDK's client hands every message to one handler without saying which
 * stream it came on. This reads a POST's event stream as it passes (unchanged) and reports each
 * server request on it (its JSON-RPC id) before the SDK sees it.
 */

/** The `progressToken` toolgate gave a POSTed request (a tools/call), which names the call it is. */
function tokenOf(body: unknown): string | undefined {
  // only calls carry one: most bodies are not parsed at all
  if (typeof body !== 'string' || !body.includes('"progressToken"')) return undefined
  try {
    const token = (JSON.parse(body) as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken
    return typeof token === 'string' ? token : undefined
  } catch {
    return undefined
  }
}

/** Every server request's id on an SSE stream, reported as the bytes pass through unchanged. */
function requestIds(found: (id: string | number) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder()
  let buffered = ''
  return new TransformStream({
    transform(chunk, controller) {
      buffered += decoder.decode(chunk, { stream: true })
      const events = buffered.split(/\r\n\r\n|\n\n|\r\r/)
      buffered = events.pop() ?? ''
      for (const event of events) {
        const data = event.split(/\r\n|\n|\r/).filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5)).join('\n')
        if (!data.includes('"method"')) continue
        try {
          const msg = JSON.parse(data) as { method?: unknown; id?: unknown } | null
          if (typeof msg?.method === 'string' && (typeof msg.id === 'string' || typeof msg.id === 'number')) found(msg.id)
        } catch { /* not JSON-RPC: the SDK reports it */ }
      }
      controller.enqueue(chunk)
    },
  })
}

/** Called with a server request's id and the progress token of the call whose stream carried it. */
export type OnStreamRequest = (requestId: string | number, token: string) => void

/** The response to a POST, its event stream read for server requests when the POST was a call. */
export function tapResponse(body: unknown, response: Response, onRequest: OnStreamRequest | undefined): Response {
  if (!onRequest || !response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response
  const token = tokenOf(body)
  if (token === undefined) return response
  return new Response(response.body.pipeThrough(requestIds((id) => onRequest(id, token))), { status: response.status, statusText: response.statusText, headers: response.headers })
}
