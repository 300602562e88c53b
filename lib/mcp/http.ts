import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import type { Db } from '@/db/client'
import type { HeaderReader } from '@/lib/auth/caller'
import { parseJson, publicMessage, readBody, statusOfError } from '@/lib/http/json'
import { logLine } from '@/lib/log'
import { buildMcpServer } from './server'
import { openContext, type McpContext } from './context'

/** Sessions for in-flight modern exchanges, keyed by the request the SDK hands its factory. */
const sessions = new WeakMap<Request, McpContext>()

function sessionOf(req: Request | undefined): McpContext {
  const session = req && sessions.get(req)
  if (!session) throw new Error('no toolgate session for this MCP request')
  return session
}

const logError = (e: Error) => console.error(logLine(`toolgate: mcp: ${e.message}`))

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
async function serveLegacy(req: Request, body: unknown, session: McpContext): Promise<Response> {
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

/** The JSON-RPC body of a failure before any dispatch (body, credentials, path profile, unreadable state). */
export function httpErrorBody(status: number, message: string): string {
  const code = status >= 500 ? -32603 : status === 400 ? -32700 : -32000
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })
}

function httpError(res: ServerResponse, e: unknown, requestId: string): void {
  const status = statusOfError(e)
  const message = publicMessage(e, requestId)
  if (status === 503) console.error(logLine(`toolgate: mcp request ${requestId} answered 503: ${message}`))
  const headers: Record<string, string> = { 'cache-control': 'no-store', 'x-request-id': requestId, 'content-type': 'application/json' }
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="toolgate"'
  res.writeHead(status, headers).end(httpErrorBody(status, message))
}

/**
 * One JSON-RPC exchange through the real MCP server for `session`, on the request's era. The
 * /mcp endpoint and the dashboard's preview both answer through here.
 */
export async function answerMcp(session: McpContext, web: Request, body: unknown): Promise<Response> {
  if (await isLegacyRequest(web, body)) return serveLegacy(web, body, session)
  sessions.set(web, session)
  return modernHandler().fetch(web, { parsedBody: body })
}

/** Copy a web Response onto the node response, streaming its body. */
async function sendWeb(res: ServerResponse, web: Response, requestId: string): Promise<void> {
  const headers: Record<string, string> = {}
  web.headers.forEach((v, k) => { headers[k] = v })
  headers['x-request-id'] = requestId
  res.writeHead(web.status, headers)
  if (!web.body) return void res.end()
  const reader = web.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    res.write(value)
  }
  res.end()
}

export interface McpRequestContext {
  db: Db
  requestId: string
  headers: HeaderReader
  remoteAddress: string | undefined
  /** the decoded /mcp/p/<profile> segment */
  profile: string | undefined
}

/**
 * The /mcp endpoint (and /mcp/p/<profile>): stateless Streamable HTTP on both protocol eras.
 * Authentication and the path profile are settled here, before any MCP dispatch; every
 * response carries the X-Request-Id its checks were recorded under.
 */
export async function handleMcp(req: IncomingMessage, res: ServerResponse, ctx: McpRequestContext): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' })
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, POST JSON-RPC requests' } }))
    return
  }
  let session: McpContext
  let body: unknown
  try {
    session = openContext(ctx.db, ctx.headers, ctx.remoteAddress, ctx.profile, ctx.requestId)
    body = parseJson(await readBody(req))
  } catch (e) {
    return httpError(res, e, ctx.requestId)
  }
  // The SDK speaks web Requests: hand it the headers and the already-parsed body.
  const webHeaders = new Headers()
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) webHeaders.set(k, Array.isArray(v) ? v.join(', ') : v)
  const web = new Request(`http://toolgate${req.url ?? '/mcp'}`, { method: 'POST', headers: webHeaders })
  let answer: Response
  try {
    answer = await answerMcp(session, web, body)
  } catch (e) {
    return httpError(res, e, ctx.requestId)
  }
  await sendWeb(res, answer, ctx.requestId)
}
