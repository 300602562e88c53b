import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api'
import { endSoon } from './context'
import { ATTR, TOOL_ERROR, TOOLGATE, withOperation } from './names'
import { telemetry, type Telemetry } from './state'
import { isStdio, type Transport } from '@/db/schema'

/** An upstream as the conventions describe its peer: a process over pipes, or a host and port over HTTP. */
export interface UpstreamPeer {
  name: string
  transport: Transport
  /** the HTTP session the server gave, if any */
  sessionId?: string
  /** the protocol version negotiated, when the transport knows it */
  protocolVersion?: string
}

const peers = new WeakMap<UpstreamPeer['transport'], Attributes>()

function peerAttributes(peer: UpstreamPeer): Attributes {
  let attrs = peers.get(peer.transport)
  if (!attrs) {
    if (isStdio(peer.transport)) attrs = { [ATTR.NETWORK_TRANSPORT]: 'pipe', [TOOLGATE.SERVER]: peer.name }
    else {
      // host and port only: a URL's path, query or user part may carry a secret
      const url = new URL(peer.transport.url)
      const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
      attrs = { [ATTR.NETWORK_TRANSPORT]: 'tcp', [ATTR.NETWORK_PROTOCOL_NAME]: 'http', [ATTR.SERVER_ADDRESS]: url.hostname, [ATTR.SERVER_PORT]: port, [TOOLGATE.SERVER]: peer.name }
    }
    peers.set(peer.transport, attrs)
  }
  return attrs
}

/**
 * The attributes both the metric and the span carry, as a fresh object each: built by
 * assignment, never by spreading one into another (see lib/telemetry/mcp-server.ts).
 */
const operationAttributes = (peer: UpstreamPeer, method: string, target: string | undefined): Attributes =>
  withOperation(Object.assign({}, peerAttributes(peer)), method, target, peer.protocolVersion) // a copy: the peer's attributes are kept

/**
 * One request toolgate sends an upstream, as its CLIENT span and its mcp.client.operation.duration.
 * Its context goes into the request's params._meta (traceparent, tracestate: the MCP convention),
 * so the upstream's own spans join the agent's trace.
 */
export class McpClientOp {
  private readonly started = performance.now()
  /** the metric's attributes (while metrics are on); the span gets these and more */
  private readonly attrs: Attributes | undefined
  private readonly span: Span | undefined

  constructor(private t: Telemetry, peer: UpstreamPeer, method: string, target: string | undefined, params: { _meta?: Record<string, unknown>; uri?: unknown; arguments?: unknown }) {
    this.attrs = t.metrics ? operationAttributes(peer, method, target) : undefined
    if (!t.tracer) return
    const span = operationAttributes(peer, method, target)
    if (peer.sessionId) span[ATTR.MCP_SESSION_ID] = peer.sessionId
    if (method === 'resources/read' && typeof params.uri === 'string') span[ATTR.MCP_RESOURCE_URI] = params.uri
    if (t.captureArguments && method === 'tools/call' && params.arguments !== undefined) span[ATTR.GEN_AI_TOOL_CALL_ARGUMENTS] = JSON.stringify(params.arguments)
    this.span = t.tracer.startSpan(target && (method === 'tools/call' || method === 'prompts/get') ? `${method} ${target}` : method, { kind: SpanKind.CLIENT, attributes: span })
    propagation.inject(trace.setSpan(context.active(), this.span), (params._meta ??= {}))
  }

  /** The upstream answered `result`, or the request failed with `error`. */
  end(result: { isError?: unknown } | undefined, error?: unknown): void {
    const code = (error as { code?: unknown } | undefined)?.code
    const errorType = error !== undefined ? (typeof code === 'number' ? String(code) : (error as Error)?.name || '_OTHER')
      : result?.isError === true ? TOOL_ERROR : undefined
    if (this.attrs) {
      let attrs = this.attrs
      if (errorType) {
        attrs = Object.assign({}, attrs)
        attrs[ATTR.ERROR_TYPE] = errorType
        if (typeof code === 'number') attrs[ATTR.RPC_RESPONSE_STATUS_CODE] = String(code)
      }
      this.t.metrics?.clientDuration.record((performance.now() - this.started) / 1000, attrs)
    }
    if (!this.span) return
    if (errorType) {
      this.span.setAttribute(ATTR.ERROR_TYPE, errorType)
      if (typeof code === 'number') this.span.setAttribute(ATTR.RPC_RESPONSE_STATUS_CODE, String(code))
      this.span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error ? { message: error.message } : {}) })
    }
    if (result && this.t.captureArguments && !errorType) this.span.setAttribute(ATTR.GEN_AI_TOOL_CALL_RESULT, JSON.stringify(result))
    endSoon(this.span)
  }
}

/** The op for one upstream request; undefined (and params untouched) while telemetry is off. */
export function mcpClientOp(upstream: { peer(): UpstreamPeer }, method: string, target: string | undefined, params: { _meta?: Record<string, unknown> }): McpClientOp | undefined {
  const t = telemetry()
  return t && (t.tracer || t.metrics) ? new McpClientOp(t, upstream.peer(), method, target, params) : undefined
}
