import type { IncomingMessage } from 'node:http'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanOptions } from '@opentelemetry/api'
import { endSoon, extractHeaders, requestContext, type McpOpFacts } from './context'
import { ATTR, TOOL_ERROR, TOOLGATE, withOperation } from './names'
import { telemetry, type Telemetry } from './state'

/**
 * The attributes both the metric and the span carry, as a fresh object each: built by
 * assignment, never by spreading one into another (V8 makes a spread copy that is then added
 * to a slow object, which costs microseconds on every span).
 */
const operationAttributes = (method: string, name: string | undefined, version: string | undefined, httpVersion: string): Attributes =>
  withOperation({ [ATTR.NETWORK_TRANSPORT]: 'tcp', [ATTR.NETWORK_PROTOCOL_NAME]: 'http', [ATTR.NETWORK_PROTOCOL_VERSION]: httpVersion }, method, name, version)

interface Message { id?: unknown; method?: unknown; params?: { name?: unknown; uri?: unknown; protocolVersion?: unknown; arguments?: unknown; _meta?: unknown } }
interface Session { requestId: string; caller: { name: string; tier: string }; profile: string | undefined }

/** A JSON answer is read for its outcome only when no hook said it first, and only when small. */
const ANSWER_PARSE_MAX = 64 * 1024

/**
 * One MCP request as its SERVER span and its mcp.server.operation.duration, per the MCP semantic
 * conventions. Started once the request's JSON-RPC message is read, ended when its answer is
 * sent; what is learnt in between (a JSON-RPC error, a tool error, the gate's verdict) is told
 * through the request's context (lib/telemetry/notes.ts).
 */
export class McpServerOp implements McpOpFacts {
  private readonly started = performance.now()
  /** the metric's attributes (while metrics are on); the span gets these and more */
  private readonly attrs: Attributes | undefined
  private readonly span: Span | undefined
  private readonly ctx: Context
  private outcome: { errorType: string; code?: number; message?: string } | null | undefined

  constructor(private t: Telemetry, req: IncomingMessage, msg: Message, session: Session) {
    const method = typeof msg.method === 'string' ? msg.method : '_OTHER'
    const params = msg.params ?? {}
    const name = typeof params.name === 'string' ? params.name : undefined
    const header = req.headers['mcp-protocol-version']
    const version = typeof header === 'string' ? header : typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined
    this.attrs = t.metrics ? operationAttributes(method, name, version, req.httpVersion) : undefined
    if (!t.tracer) {
      this.ctx = requestContext(context.active(), session.requestId, undefined, this)
      return
    }
    const span = operationAttributes(method, name, version, req.httpVersion)
    span[ATTR.GEN_AI_AGENT_NAME] = session.caller.name
    span[TOOLGATE.CALLER_TIER] = session.caller.tier
    span[TOOLGATE.REQUEST_ID] = session.requestId
    if (msg.id !== undefined && msg.id !== null) span[ATTR.JSONRPC_REQUEST_ID] = String(msg.id)
    if (method === 'resources/read' && typeof params.uri === 'string') span[ATTR.MCP_RESOURCE_URI] = params.uri
    if (req.socket.remoteAddress) {
      span[ATTR.CLIENT_ADDRESS] = req.socket.remoteAddress
      span[ATTR.CLIENT_PORT] = req.socket.remotePort
    }
    if (session.profile !== undefined) span[TOOLGATE.PROFILE] = session.profile
    if (t.captureArguments && method === 'tools/call' && params.arguments !== undefined) span[ATTR.GEN_AI_TOOL_CALL_ARGUMENTS] = JSON.stringify(params.arguments)
    // the conventions: the caller's context in params._meta is the parent; the HTTP request's, a link
    const httpContext = extractHeaders(t.propagationFields ?? [], req.headers)
    const meta = params._meta && typeof params._meta === 'object' ? params._meta as Record<string, unknown> : undefined
    const metaContext = meta && typeof meta.traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, meta) : undefined
    const httpParent = metaContext && httpContext !== ROOT_CONTEXT ? trace.getSpanContext(httpContext) : undefined
    const options: SpanOptions = { kind: SpanKind.SERVER, attributes: span }
    if (httpParent && trace.isSpanContextValid(httpParent)) options.links = [{ context: httpParent }]
    this.span = t.tracer.startSpan(name && (method === 'tools/call' || method === 'prompts/get') ? `${method} ${name}` : method, options, metaContext ?? httpContext)
    this.ctx = requestContext(context.active(), session.requestId, this.span, this)
  }

  /** Run the request's handling in its context (its span active), without a closure. */
  run<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): R {
    return context.with(this.ctx, fn, undefined, ...args)
  }

  /** A JSON-RPC error answered this request. */
  failed(code: number, message: string): void {
    this.outcome ??= { errorType: String(code), code, message }
  }

  /** A tools/call result: isError is a tool_error; its content goes on the span only when opted in. */
  result(result: { isError?: unknown }): void {
    if (result.isError === true) this.outcome ??= { errorType: TOOL_ERROR }
    else this.outcome ??= null
    if (this.span && this.t.captureArguments) this.span.setAttribute(ATTR.GEN_AI_TOOL_CALL_RESULT, JSON.stringify(result))
  }

  /** The JSON answer as sent: its outcome, when no hook told it (an error the SDK answered itself). */
  answered(bytes: Uint8Array): void {
    if (this.outcome !== undefined || bytes.length > ANSWER_PARSE_MAX) return
    try {
      this.responded(JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')))
    } catch { /* not JSON: nothing to learn */ }
  }

  /** The JSON-RPC response as sent (the lean path has it as an object): its outcome, when no hook told it. */
  responded(message: object): void {
    if (this.outcome !== undefined) return
    const msg = message as { error?: { code?: unknown; message?: unknown }; result?: { isError?: unknown } }
    if (msg.error && typeof msg.error.code === 'number') this.failed(msg.error.code, String(msg.error.message ?? ''))
    else if (msg.result) this.result({ isError: msg.result.isError })
  }

  /** The answer went out with this HTTP status. */
  end(status: number): void {
    if (!this.outcome && status >= 400) this.outcome = { errorType: String(status) }
    const o = this.outcome
    if (this.attrs) {
      let attrs = this.attrs
      if (o) {
        attrs = Object.assign({}, attrs)
        attrs[ATTR.ERROR_TYPE] = o.errorType
        if (o.code !== undefined) attrs[ATTR.RPC_RESPONSE_STATUS_CODE] = String(o.code)
      }
      this.t.metrics?.serverDuration.record((performance.now() - this.started) / 1000, attrs)
    }
    if (!this.span) return
    if (o) {
      this.span.setAttribute(ATTR.ERROR_TYPE, o.errorType)
      if (o.code !== undefined) this.span.setAttribute(ATTR.RPC_RESPONSE_STATUS_CODE, String(o.code))
      this.span.setStatus({ code: SpanStatusCode.ERROR, ...(o.message ? { message: o.message } : {}) })
    }
    endSoon(this.span)
  }
}

/** The op for one MCP request; undefined (and nothing made) while telemetry is off. */
export function mcpServerOp(req: IncomingMessage, msg: unknown, session: Session): McpServerOp | undefined {
  const t = telemetry()
  return t && (t.tracer || t.metrics) && msg && typeof msg === 'object' && !Array.isArray(msg) ? new McpServerOp(t, req, msg as Message, session) : undefined
}
