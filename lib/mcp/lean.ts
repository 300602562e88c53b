import 'server-only'
import type { ServerResponse } from 'node:http'
import { classifyInboundRequest, isJsonContentType, PROTOCOL_VERSION_META_KEY, RELATED_TASK_META_KEY, type JSONRPCMessage, type RequestId, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server'
import { callerKey, type HeaderReader } from '@/lib/auth/caller'
import { logError } from '@/lib/core/log'
import type { McpContext } from './context'
import { buildToolServer } from './server'
import type { ServerAsk } from '@/lib/upstream/calls'
import { askOverStream } from './ask-caller'
import { answerOnNode, isResponse } from './auto-stream'
import { DESCRIBE_TOOL } from '@/lib/catalog/listing'
import type { McpServerOp } from '@/lib/telemetry/mcp-server'

/**
 * The lean path: the common 2025-11-25 exchanges — tools/call, tools/list, tools/resolve and
 * ping — answered by one MCP server built once, through one transport that tells the exchanges
 * apart, the answer written straight onto the node response. The server, its handlers and its
 * validation are the SDK's and the same code as every other path (lib/mcp/server.ts); what a
 * request no longer pays for is a server, a transport, web Request/Response objects and the
 * transport's own re-validation of every message. A request that is anything but well-formed
 * and ordinary takes the per-request path instead (lib/mcp/http.ts), which answers every refusal.
 */

const LEAN_METHODS = new Set(['tools/call', 'tools/list', 'tools/resolve', 'ping'])

export interface LeanRequest { jsonrpc: '2.0'; id: string | number; method: string; params?: Record<string, unknown> }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isId = (v: unknown) => typeof v === 'string' || Number.isSafeInteger(v)

/** Whether the SDK reads `body` as one JSON-RPC request (its strict JSONRPCRequestSchema), judged conservatively. */
function plainRequest(body: unknown): body is LeanRequest {
  if (!isObject(body)) return false
  for (const key in body) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !isId(body.id)) return false
  if (body.params === undefined) return true
  if (!isObject(body.params)) return false
  const meta = body.params._meta
  if (meta === undefined) return true
  return isObject(meta) && meta[RELATED_TASK_META_KEY] === undefined && (meta.progressToken === undefined || isId(meta.progressToken))
}

interface Exchange { id: RequestId; session: McpContext; answer: (message: JSONRPCMessage) => Promise<void> }

/**
 * The shared server's one transport. Each exchange's request enters under an id of its own
 * (every client numbers from 1), so what the server sends for it — notifications, then its
 * response — goes back to that exchange, under the client's id.
 */
class Exchanges implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  /** the protocol versions the server serves that a 2025-11-25 request may name */
  legacyVersions: ReadonlySet<string> = new Set()
  private last = 0
  private readonly open = new Map<RequestId, Exchange>()

  async start() {}
  async close() {}
  setSupportedProtocolVersions(versions: string[]) {
    // the SDK's judgement of each, asked once (a request naming it, with no envelope claim)
    const era = (v: string) => classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: v, body: { jsonrpc: '2.0', id: 0, method: 'ping' } }).kind
    this.legacyVersions = new Set(versions.filter((v) => era(v) === 'legacy'))
  }

  sessionOf(id: RequestId): McpContext {
    const exchange = this.open.get(id)
    if (!exchange) throw new Error(`no open exchange for request ${String(id)}`)
    return exchange.session
  }

  enter(request: LeanRequest, session: McpContext, answer: Exchange['answer']): void {
    const id = ++this.last
    this.open.set(id, { id: request.id, session, answer })
    this.onmessage?.({ ...request, id })
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!isResponse(message)) return this.open.get(options?.relatedRequestId ?? -1)?.answer(message)
    const id = (message as { id: RequestId }).id
    const exchange = this.open.get(id)
    if (!exchange) return
    this.open.delete(id)
    return exchange.answer({ ...message, id: exchange.id } as JSONRPCMessage)
  }
}

let exchanges: Exchanges | undefined
/** The 2025-11-25 tool server and its transport, built on first use. */
function shared(): Exchanges {
  if (exchanges) return exchanges
  const transport = new Exchanges()
  const server = buildToolServer('legacy', (ctx) => transport.sessionOf(ctx.mcpReq.id))
  server.onerror = (e) => logError(`toolgate: mcp: ${e.message}`)
  void server.connect(transport) // installs its handlers on the transport at once; start() has nothing to wait for
  return (exchanges = transport)
}

/**
 * The request, when it can take the lean path: a well-formed 2025-11-25 request for one of the
 * common methods, with the headers the SDK's transport asks for, that no other rule claims
 * (a task, a non-string cursor). Otherwise undefined.
 */
export function leanRequest(headers: HeaderReader, body: unknown): LeanRequest | undefined {
  if (!plainRequest(body) || !LEAN_METHODS.has(body.method)) return undefined
  const params = body.params
  if (body.method === 'tools/list' && params?.cursor !== undefined && typeof params.cursor !== 'string') return undefined
  if (body.method === 'tools/call' && params?.task !== undefined) return undefined
  const accept = headers.get('accept') ?? ''
  if (!accept.includes('application/json') || !accept.includes('text/event-stream') || !isJsonContentType(headers.get('content-type'))) return undefined
  // 2025-11-25 by the SDK's own rule (classifyInboundRequest) for a well-formed request: no
  // per-request envelope claim, and no protocol version header naming a 2026-era revision
  const version = headers.get('mcp-protocol-version')
  if (version !== null && !shared().legacyVersions.has(version)) return undefined
  const meta = params?._meta
  return isObject(meta) && PROTOCOL_VERSION_META_KEY in meta ? undefined : body
}

/**
 * Answer a lean request onto `res`. A call of an upstream tool may stream (progress, log
 * messages, an elicitation put to the client on its stream); anything else answers one JSON body.
 */
export function serveLean(session: McpContext, request: LeanRequest, res: ServerResponse, requestId: string, op?: McpServerOp): void {
  const mayStream = request.method === 'tools/call' && request.params?.name !== DESCRIBE_TOOL
  const answer = answerOnNode(res, requestId, mayStream, op && ((m) => op.responded(m)))
  session.closed?.addEventListener('abort', answer.done, { once: true })
  // what the caller is asked is answered in a later POST, matched to the same token (an anonymous caller's cannot be: declined)
  const key = callerKey(session.caller)
  const ask = mayStream && key !== undefined
    ? (asked: ServerAsk, ended: AbortSignal) => askOverStream(key, (r) => answer.send(r as JSONRPCMessage), asked, session.closed ? AbortSignal.any([ended, session.closed]) : ended)
    : undefined
  // Object.assign, not a spread with new keys: V8 (Node 20) builds that as a slow object, microseconds a call
  shared().enter(request, Object.assign({}, session, { ask, streams: mayStream }), answer.send)
}
