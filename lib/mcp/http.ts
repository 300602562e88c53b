import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createMcpHandler, isLegacyRequest, ProtocolErrorCode, SUPPORTED_PROTOCOL_VERSIONS, WebStandardStreamableHTTPServerTransport, type JSONRPCMessage } from '@modelcontextprotocol/server'
import type { Db } from '@/db/client'
import { callerKey, type HeaderReader } from '@/lib/auth/caller'
import { parseJson, publicMessage, readBody, retryAfter, statusOfError } from '@/lib/http/json'
import { jsonRpcError, jsonRpcResult, SERVER_ERROR } from '@/lib/http/json-rpc'
import { ownRequestId } from '@/lib/activity/request-id'
import { admit } from '@/lib/limits/budgets'
import { logError } from '@/lib/core/log'
import { mcpServerOp, type McpServerOp } from '@/lib/telemetry/mcp-server'
import { buildMcpServer, type Exchange } from './server'
import { DESCRIBE_TOOL } from '@/lib/catalog/listing'
import { openContext, type McpContext } from './context'
import { answerTask, isTaskRequest } from './tasks'
import { setLogLevel } from './log-level'
import type { ServerAsk } from '@/lib/upstream/calls'
import { answerFromClient, askOverStream, isResponse } from './ask-caller'
import { jsonUntilStreamed, streamWhenLate } from './auto-stream'
import { leanRequest, serveLean } from './lean'
import { gateListen, listenBus, listening, watchListings } from './listen'
import { undeclaredTaskListen } from './task-extension'
import { answerSubscription, watchUpdates } from './subscriptions'

/**
 * Calls in flight, by caller and JSON-RPC id. A 2025-11-25 client cancels with a separate POST
 * (notifications/cancelled naming the request id), which a stateless endpoint can match only
 * this way — among the calls of the same caller, never another's.
 */
const inflight = new Map<string, AbortController>()
const inflightKey = (caller: string, id: unknown) => `${caller}\u0000${JSON.stringify(id)}`

/** Sessions for in-flight modern exchanges, keyed by the request the SDK hands its factory. */
const sessions = new WeakMap<Request, McpContext>()
/** Modern exchanges whose server's declarations are read (lib/mcp/server.ts Exchange). */
const declaring = new WeakMap<Request, Exchange>()
const methodOf = (body: unknown) => (body as { method?: string } | null)?.method ?? ''
const isHandshake = (body: unknown) => ['initialize', 'server/discover'].includes(methodOf(body))
/** What the server built for this exchange is read for: a handshake's instructions and capabilities, a listen's filter (honoured against the capabilities). */
const exchangeOf = (body: unknown): Exchange | undefined => (isHandshake(body) ? 'handshake' : methodOf(body) === 'subscriptions/listen' ? 'listen' : undefined)

function sessionOf(req: Request | undefined): McpContext {
  const session = req && sessions.get(req)
  if (!session) throw new Error('no toolgate session for this MCP request')
  return session
}

const logMcpError = (e: Error) => logError(`toolgate: mcp: ${e.message}`)

/**
 * Whether this exchange may stream (SSE): a call of an upstream tool — during which an upstream
 * sends progress, log messages and elicitations — or a prompts/get or resources/read (which an
 * upstream may answer by asking the caller something), from a client that accepts an event
 * stream. Everything else answers one JSON body.
 */
function streams(web: Request, body: unknown): boolean {
  if (!(web.headers.get('accept') ?? '').includes('text/event-stream')) return false
  const msg = body as { method?: unknown; params?: { name?: unknown } } | null
  return (msg?.method === 'tools/call' && msg.params?.name !== DESCRIBE_TOOL) || msg?.method === 'prompts/get' || msg?.method === 'resources/read'
}

/**
 * 2026-07-28 traffic: one JSON body unless the handler sends a notification (progress, an
 * upstream's log message) before its result, or a call runs past 10 s (streamWhenLate), which
 * upgrades the response to an SSE stream; an
 * exchange that may not stream sends none (McpContext.streams), so it stays one JSON body. Legacy
 * traffic never reaches these handlers (routed below), because the SDK's own stateless legacy
 * leg would always stream.
 */
let modernHandler: ReturnType<typeof createMcpHandler> | undefined
const modern = () => (modernHandler ??= createMcpHandler(
  ({ requestInfo }) => buildMcpServer(sessionOf(requestInfo), 'modern', declaring.get(requestInfo!)),
  // subscriptions/listen streams hear only what their own caller is served (lib/mcp/listen.ts)
  { legacy: 'reject', onerror: logMcpError, bus: listenBus },
))

/**
 * 2025-11-25 traffic: a fresh server and stateless transport per request; a call that sends
 * something before its result streams it (SSE), everything else answers one JSON body.
 */
async function serveLegacy(req: Request, body: unknown, session: McpContext): Promise<Response> {
  const streaming = streams(req, body)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  // a streaming call can put an upstream's elicitation to the client, as a request on its stream
  const relatedRequestId = (body as { id?: string | number }).id
  // its answer comes in a later POST, matched to the same token (an anonymous caller's cannot be: declined)
  const key = callerKey(session.caller)
  const ask = streaming && relatedRequestId !== undefined && key !== undefined
    ? (asked: ServerAsk, ended: AbortSignal) => askOverStream(key, (request) => transport.send(request as JSONRPCMessage, { relatedRequestId }), asked,
      session.closed ? AbortSignal.any([ended, session.closed]) : ended)
    : undefined
  const server = buildMcpServer(Object.assign({}, session, { ask }), 'legacy', exchangeOf(body))
  transport.onerror = logMcpError
  await server.connect(transport)
  let auto: ReturnType<typeof jsonUntilStreamed> | undefined
  const close = async () => {
    auto?.done()
    await transport.close().catch(logMcpError)
    await server.close().catch(logMcpError)
  }
  // Closed a turn later: closing aborts every request the SDK has not yet finished its
  // bookkeeping for, and that abort would run through every signal derived from the call's.
  const closeSoon = async () => void setImmediate(() => void close())
  let answer: Response
  // armed only now, so nothing that fails above leaves its timers behind
  if (streaming) auto = jsonUntilStreamed(transport)
  try {
    const answered = transport.handleRequest(req, { parsedBody: body })
    answered.catch(() => undefined) // once upgraded, its late outcome is nobody's
    answer = await (auto ? Promise.race([answered, auto.upgraded]) : answered)
  } catch (e) {
    await close()
    throw e
  }
  if (!answer.body || !(answer.headers.get('content-type') ?? '').includes('text/event-stream')) {
    await closeSoon()
    return answer
  }
  // a stream is still being written when it is returned: close once it ends, or the client leaves
  return new Response(whenDone(answer.body, closeSoon), { status: answer.status, headers: answer.headers })
}

/** The same stream, calling `done` once when it ends or is cancelled. */
function whenDone(body: ReadableStream<Uint8Array>, done: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let finished = false
  const finish = () => { if (!finished) { finished = true; void done() } }
  return new ReadableStream({
    async pull(controller) {
      const { done: end, value } = await reader.read()
      if (end) {
        controller.close()
        finish()
      } else controller.enqueue(value)
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined)
      finish()
    },
  })
}

/** The JSON-RPC body of a failure before any dispatch (body, credentials, path profile, unreadable state). */
export function httpErrorBody(status: number, message: string): string {
  const code = status >= 500 ? ProtocolErrorCode.InternalError : status === 400 ? ProtocolErrorCode.ParseError : SERVER_ERROR
  return JSON.stringify(jsonRpcError(null, code, message))
}

function httpError(res: ServerResponse, e: unknown, requestId: string): void {
  const status = statusOfError(e)
  const message = publicMessage(e, requestId)
  if (status === 503) logError(`toolgate: mcp request ${requestId} answered 503: ${message}`)
  const headers: Record<string, string> = { 'cache-control': 'no-store', 'x-request-id': requestId, 'content-type': 'application/json', ...retryAfter(e) }
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="toolgate"'
  res.writeHead(status, headers).end(httpErrorBody(status, message))
}

/**
 * One JSON-RPC exchange through the real MCP server for `session`, on the request's era. The
 * /mcp endpoint and the dashboard's preview both answer through here.
 */
/**
 * A fault in a request's params that the SDK would answer as an internal error (with its raw
 * schema dump): a paginated list's cursor must be a string. Answered -32602 here instead.
 */
function paramsFault(body: unknown): Response | undefined {
  const msg = body as { id?: unknown; method?: unknown; params?: { cursor?: unknown } } | null
  if (typeof msg?.method !== 'string' || !msg.method.endsWith('/list') || msg.params?.cursor === undefined || typeof msg.params.cursor === 'string') return undefined
  return Response.json(jsonRpcError(msg.id, ProtocolErrorCode.InvalidParams, 'Invalid params: cursor must be a string (pass back a nextCursor exactly as received)'))
}

export async function answerMcp(session: McpContext, web: Request, body: unknown): Promise<Response> {
  const fault = paramsFault(body)
  if (fault) return fault
  if (await isLegacyRequest(web, body)) {
    if (isTaskRequest(body)) return answerTask(session, body)
    const msg = body as { id?: unknown; method?: unknown; params?: unknown }
    if (msg.method === 'logging/setLevel') {
      const key = callerKey(session.caller)
      const fault = key === undefined
        ? 'logging/setLevel needs an agent token: an anonymous caller is a new caller on every request, so no level can be kept for it'
        : await setLogLevel(key, msg.params)
      return Response.json(fault ? jsonRpcError(msg.id, ProtocolErrorCode.InvalidParams, fault) : jsonRpcResult(msg.id, {}))
    }
    // kept per token and path profile, heard on its GET streams (lib/mcp/subscriptions.ts)
    if (msg.method === 'resources/subscribe' || msg.method === 'resources/unsubscribe') return answerSubscription(session, { ...msg, method: msg.method })
    return serveLegacy(web, body, session)
  }
  const streaming = streams(web, body)
  sessions.set(web, Object.assign({}, session, { streams: streaming }))
  const exchange = exchangeOf(body)
  if (exchange) declaring.set(web, exchange)
  const undeclared = undeclaredTaskListen(body)
  if (undeclared) return undeclared
  const gated = gateListen(session, body)
  const answered = listening(session, gated, () => modern().fetch(web, { parsedBody: gated }))
  return streaming ? streamWhenLate(answered) : answered
}

/** Copy a web Response onto the node response, streaming its body. */
async function sendWeb(res: ServerResponse, web: Response, requestId: string, left: AbortSignal, op: McpServerOp | undefined): Promise<void> {
  const headers: Record<string, string> = {}
  web.headers.forEach((v, k) => { headers[k] = v })
  headers['x-request-id'] = requestId
  if (!web.body) return void res.writeHead(web.status, headers).end()
  // one JSON body: one write, with its length (a chunked body's end is a write of its own)
  if (!(headers['content-type'] ?? '').includes('text/event-stream')) {
    const bytes = Buffer.from(await web.arrayBuffer())
    op?.answered(bytes)
    headers['content-length'] = String(bytes.length)
    return void res.writeHead(web.status, headers).end(bytes)
  }
  // a stream's headers go out at once: the client knows the call is alive before its first event
  res.writeHead(web.status, headers).flushHeaders()
  const reader = web.body.getReader()
  // a client that leaves mid-stream (or left before it began) ends the stream, and what it was waiting for
  const leave = () => void reader.cancel().catch(() => undefined)
  if (left.aborted) leave()
  else left.addEventListener('abort', leave, { once: true })
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }))
    if (done) break
    res.write(value)
  }
  res.end()
}

/** The node request as the SDK takes it: its method, url and headers (a body is handed over parsed). */
function webRequest(req: IncomingMessage, method: 'GET' | 'POST'): Request {
  const headers = new Headers()
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v)
  return new Request(`http://toolgate${req.url ?? '/mcp'}`, { method, headers })
}

function methodNotAllowed(res: ServerResponse, message: string): void {
  res.writeHead(405, { allow: 'GET, POST', 'content-type': 'application/json' })
  res.end(JSON.stringify(jsonRpcError(null, SERVER_ERROR, message)))
}

/**
 * The 2025-11-25 standalone SSE stream (GET): the SDK's stateless transport frames it (headers,
 * events, keep-alive comments every 15 s) and toolgate sends on it, as JSON-RPC notifications,
 * each change to a listing this caller is served — the changes a subscriptions/listen stream
 * hears (watchListings) — and each update of a resource it subscribed to (watchUpdates). The
 * endpoint keeps no session, so the stream is its token's (and path profile's): every stream of
 * it hears the same. It ends when the client leaves.
 */
async function listingStream(session: McpContext, web: Request): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined })
  transport.onerror = logMcpError
  const answer = await transport.handleRequest(web)
  if (!answer.body || !(answer.headers.get('content-type') ?? '').includes('text/event-stream')) {
    await transport.close()
    return answer
  }
  const stop = watchListings(session, (kind) => {
    const method = `notifications/${kind.slice(0, kind.indexOf('_'))}/list_changed`
    transport.send({ jsonrpc: '2.0', method }).catch(logMcpError)
  })
  const stopUpdates = watchUpdates(session, (uri) => {
    transport.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }).catch(logMcpError)
  })
  return new Response(whenDone(answer.body, async () => {
    stop()
    stopUpdates()
    await transport.close().catch(logMcpError)
  }), { status: answer.status, headers: answer.headers })
}

export interface McpRequestContext {
  db: Db
  requestId: string
  headers: HeaderReader
  remoteAddress: string | undefined
  /** whether requestId is the client's own X-Request-Id (kept only while it is the caller's: ownRequestId) */
  requestIdFromClient: boolean
  /** the decoded /mcp/p/<profile> segment */
  profile: string | undefined
}

/**
 * The /mcp endpoint (and /mcp/p/<profile>): stateless Streamable HTTP on both protocol eras.
 * Authentication and the path profile are settled here, before any MCP dispatch; every
 * response carries the X-Request-Id its checks were recorded under.
 */
export async function handleMcp(req: IncomingMessage, res: ServerResponse, ctx: McpRequestContext): Promise<void> {
  const stream = req.method === 'GET' && (req.headers.accept ?? '').includes('text/event-stream')
  if (req.method !== 'POST' && !stream) return methodNotAllowed(res, 'Method not allowed: POST JSON-RPC requests (a GET opens a 2025-11-25 listing-change stream, with Accept: text/event-stream)')
  const version = ctx.headers.get('mcp-protocol-version')
  // 2026-07-28 hears of changes on subscriptions/listen (POST); an absent header is 2025-era traffic (the spec's 2025-03-26 default, which has this stream too)
  if (stream && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return methodNotAllowed(res, `Method not allowed: a GET stream is served on ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}; on ${version}, POST subscriptions/listen`)
  }
  let session: McpContext
  let body: unknown
  let changes: Response | undefined
  // the client going away mid-call, or cancelling it, cancels what it asked for (an upstream call, a held wait)
  const cancel = new AbortController()
  res.on('close', () => { if (!res.writableFinished) cancel.abort() })
  let requestId = ctx.requestId
  try {
    const opened = openContext(ctx.db, ctx.headers, ctx.remoteAddress, ctx.profile, ctx.requestId)
    admit(ctx.db, opened.caller) // a limited agent is refused before its request is read
    requestId = ownRequestId(ctx.db, requestId, ctx.requestIdFromClient, opened.caller.name)
    // Object.assign, not a spread with new keys: V8 (Node 20) builds that as a slow object, microseconds a call
    session = Object.assign(opened, { requestId, closed: cancel.signal })
    if (stream) changes = await listingStream(session, webRequest(req, 'GET'))
    else body = parseJson(await readBody(req))
  } catch (e) {
    return httpError(res, e, requestId)
  }
  if (changes) return sendWeb(res, changes, requestId, cancel.signal, undefined)
  const msg = body as { id?: unknown; method?: unknown; params?: { requestId?: unknown } } | null
  // what a later request may do to an earlier one — answer its elicitation, cancel it — only the
  // same token may (by its id); an anonymous caller shares nothing, with anyone
  const caller = callerKey(session.caller)
  // a 2025-11-25 client answering an elicitation put to it on a call's stream
  if (isResponse(body)) {
    if (caller !== undefined) answerFromClient(caller, body)
    res.writeHead(202, { 'x-request-id': requestId }).end()
    return
  }
  if (msg?.method === 'notifications/cancelled') {
    // its reason goes on to the upstream as the client gave it
    const reason = (msg.params as { reason?: unknown } | undefined)?.reason
    if (caller !== undefined) inflight.get(inflightKey(caller, msg.params?.requestId))?.abort(typeof reason === 'string' ? reason : undefined)
    res.writeHead(202, { 'x-request-id': requestId }).end()
    return
  }
  if (msg?.method === 'tools/call' && msg.id !== undefined && caller !== undefined) {
    const key = inflightKey(caller, msg.id)
    inflight.set(key, cancel)
    res.on('close', () => { if (inflight.get(key) === cancel) inflight.delete(key) })
  }
  // JSON-RPC batches are gone from both revisions served here (2025-11-25 removed them)
  if (Array.isArray(body)) {
    res.writeHead(400, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-request-id': requestId })
    return void res.end(JSON.stringify(jsonRpcError(null, ProtocolErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not supported; send one request per HTTP POST')))
  }
  // the common methods, well-formed: one shared server, answered straight onto the response
  const lean = leanRequest(ctx.headers, body)
  if (lean) {
    // its SERVER span and duration, as on the per-request path (undefined while telemetry is off)
    const op = mcpServerOp(req, body, session)
    if (!op) return serveLean(session, lean, res, requestId)
    res.once('close', () => op.end(res.statusCode))
    return op.run(serveLean, session, lean, res, requestId, op)
  }
  // The SDK speaks web Requests: hand it the headers and the already-parsed body.
  const web = webRequest(req, 'POST')
  // its SERVER span and duration (undefined while telemetry is off)
  const op = mcpServerOp(req, body, session)
  let answer: Response
  try {
    answer = await (op ? op.run(answerMcp, session, web, body) : answerMcp(session, web, body))
  } catch (e) {
    httpError(res, e, requestId)
    return op?.end(res.statusCode)
  }
  await sendWeb(res, answer, requestId, cancel.signal, op)
  op?.end(res.statusCode)
}
