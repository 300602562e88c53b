import type { IncomingMessage, ServerResponse } from 'node:http'
import { badRequest, LimitedError, ToolgateError, type FailureKind } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'

export const MAX_BODY_BYTES = 1024 * 1024
/** Deeper JSON than this is refused before it is parsed into nested objects. */
export const MAX_JSON_DEPTH = 64

export class PayloadTooLarge extends Error {}

const statusOf: Record<FailureKind, number> = { bad_request: 400, unauthorized: 401, forbidden: 403, not_found: 404, rate_limited: 429, unavailable: 503 }

/**
 * Read at most MAX_BODY_BYTES of a request body. By its events, not `for await`: the stream's
 * async iterator costs more than the read of a small body.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (declared > MAX_BODY_BYTES) return Promise.reject(new PayloadTooLarge(`request body exceeds ${MAX_BODY_BYTES} bytes`))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (e?: Error) => {
      req.off('data', data).off('end', end).off('error', done).off('close', closed)
      if (e) reject(e)
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
    }
    const data = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk)
      req.resume() // drain the rest so the socket can answer
      done(new PayloadTooLarge(`request body exceeds ${MAX_BODY_BYTES} bytes`))
    }
    const end = () => done()
    // the client went away before the body ended (clientWentAway reads it so)
    const closed = () => done(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))
    req.on('data', data).on('end', end).on('error', done).on('close', closed)
  })
}

/** How deep brackets nest in a JSON text (strings skipped); cheap, and bounded before JSON.parse. */
function jsonDepth(text: string): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) { if (++depth > max) max = depth }
    else if (c === 125 || c === 93) depth--
  }
  return max
}

/** Parse a body as JSON; bad input is a named 400. */
export function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8')
  if (!text.trim()) throw badRequest('request body is empty: expected one JSON object')
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw badRequest(`request body nests deeper than ${MAX_JSON_DEPTH} levels`)
  try {
    return JSON.parse(text)
  } catch (e) {
    throw badRequest(`invalid JSON: ${(e as Error).message.slice(0, 200)}`)
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers })
  res.end(text)
}

/** The client closed or reset the connection before its request was complete: not toolgate's failure. */
export const clientWentAway = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code === 'ECONNRESET' || (e instanceof Error && e.message === 'aborted')

/** A failure's HTTP status: its kind, 413 for an oversized body, 400 for a request cut short, else 500 (an unexpected error). */
export function statusOfError(e: unknown): number {
  return e instanceof PayloadTooLarge ? 413 : e instanceof ToolgateError ? statusOf[e.kind] : clientWentAway(e) ? 400 : 500
}

/** One quiet line for a client that went away (no stack: nothing failed here). */
export function logClientGone(requestId: string): void {
  logError(`toolgate: request ${requestId}: the client went away before its request was complete`)
}

/**
 * The message a failure is answered with. Typed failures carry their own words; anything else
 * is unexpected: it is logged once with the request id, and the answer names only that id.
 */
export function publicMessage(e: unknown, requestId: string): string {
  if (e instanceof ToolgateError || e instanceof PayloadTooLarge) return e.message
  if (clientWentAway(e)) {
    logClientGone(requestId)
    return 'the client went away' // to nobody: the connection is gone
  }
  logError(`toolgate: request ${requestId} failed unexpectedly: ${e instanceof Error ? e.stack ?? e.message : String(e)}`, 8_000)
  return `toolgate failed unexpectedly (request ${requestId}); the server log has the details`
}

/** A limit's Retry-After header (seconds), for any surface answering over HTTP. */
export const retryAfter = (e: unknown): Record<string, string> => (e instanceof LimitedError ? { 'retry-after': String(e.retryAfterSeconds) } : {})

/** The REST error envelope. */
export function sendError(res: ServerResponse, e: unknown, requestId: string): void {
  const status = statusOfError(e)
  const error = publicMessage(e, requestId)
  if (status === 503) logError(`toolgate: request ${requestId} answered 503: ${error}`)
  const headers: Record<string, string> = { 'x-request-id': requestId, ...retryAfter(e) }
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="toolgate"'
  sendJson(res, status, { success: false, error, request_id: requestId }, headers)
}
