import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { requestIdFrom } from '../activity/request-id'
import { describeError, ToolgateError, type FailureKind } from '../errors'
import { PayloadTooLarge, readJsonBody } from '../http/json'
import { serverDb } from '../http/server-db'
import { buildMcpServer } from './server'
import { openSession, type McpSession } from './session'

/** Sessions for in-flight modern exchanges, keyed by the request the SDK hands its factory. */
const sessions = new WeakMap<Request, McpSession>()

function sessionOf(req: Request | undefined): McpSession {
  const session = req && sessions.get(req)
  if (!session) throw new Error('no toolgate session for this MCP request')
  return session
}

const logError = (e: Error) => console.error(`toolgate: mcp: ${e.message}`)

/**
 * 2026-07-28 traffic. JSON responses only: no handler here emits anything before its
 * result. Legacy traffic never reaches this handler (routed below), because the SDK's own
 * stateless legacy leg would answer it as SSE.
 */
let modern: ReturnType<typeof createMcpHandler> | undefined
const modernHandler = () => (modern ??= createMcpHandler(
  ({ requestInfo }) => buildMcpServer(sessionOf(requestInfo), 'modern'),
  { legacy: 'reject', responseMode: 'json', onerror: logError },
))

/** 2025-11-25 traffic: a fresh server and stateless transport per request, JSON responses. */
async function serveLegacy(req: Request, body: unknown, session: McpSession): Promise<Response> {
  const server = buildMcpServer(session, 'legacy')
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  transport.onerror = logError
  await server.connect(transport)
  try {
    return await transport.handleRequest(req, { parsedBody: body })
  } finally {
    await transport.close().catch(logError)
    await server.close().catch(logError)
  }
}

const statusOf: Record<FailureKind, number> = { bad_request: 400, unauthorized: 401, not_found: 404, unavailable: 503 }

/** Failures before any JSON-RPC dispatch (body, credentials, path profile, unreadable state). */
function httpError(e: unknown, requestId: string): Response {
  const status = e instanceof PayloadTooLarge ? 413 : e instanceof ToolgateError ? statusOf[e.kind] : 503
  const message = e instanceof ToolgateError || e instanceof PayloadTooLarge ? e.message : `toolgate could not answer honestly: ${describeError(e)}`
  if (status === 503) console.error(`toolgate: mcp: ${message}`)
  const headers = new Headers({ 'cache-control': 'no-store', 'x-request-id': requestId })
  if (status === 401) headers.set('www-authenticate', 'Bearer realm="toolgate", error="invalid_token"')
  const code = status === 503 ? -32603 : status === 400 ? -32700 : -32000
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status, headers })
}

/**
 * The /mcp endpoint (and /mcp/p/<profile>): stateless Streamable HTTP on both protocol eras.
 * Authentication and the path profile are settled here, before any MCP dispatch; every
 * response carries the X-Request-Id its checks were recorded under.
 */
export async function handleMcp(req: Request, profile: string | undefined): Promise<Response> {
  if (req.method !== 'POST') {
    return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, POST JSON-RPC requests' } },
      { status: 405, headers: { allow: 'POST' } })
  }
  // One JSON-RPC message per POST, so one id: the caller's X-Request-Id when well-formed.
  const requestId = requestIdFrom(req.headers.get('x-request-id'))
  let session: McpSession
  let body: unknown
  try {
    session = openSession(serverDb(), req, profile, requestId)
    // Read once (1 MiB cap, like REST) and hand the parsed body to the era router and the
    // SDK alike, rather than cloning the request stream for each reader.
    body = await readJsonBody(req)
  } catch (e) {
    return httpError(e, requestId)
  }
  let res: Response
  if (await isLegacyRequest(req, body)) {
    res = await serveLegacy(req, body, session)
  } else {
    sessions.set(req, session)
    res = await modernHandler().fetch(req, { parsedBody: body })
  }
  const headers = new Headers(res.headers)
  headers.set('x-request-id', requestId)
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
}
