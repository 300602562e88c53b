import type { IncomingHttpHeaders } from 'node:http'
import { context, createContextKey, propagation, ROOT_CONTEXT, trace, type Context, type Span } from '@opentelemetry/api'
import { telemetry } from './state'

/**
 * What a request's context carries for toolgate, beside the active span: the request id its
 * records are under (for JSON logs), toolgate's own span of the request (the MCP SERVER span,
 * the REST or dashboard-action span), where facts found deeper down go even when Next.js has
 * opened spans of its own in between, and the MCP request's op. One entry under one key: each
 * value set copies the context's map. The key is Symbol.for-named, so both bundles share it.
 */
const REQUEST = createContextKey('toolgate.request')

interface RequestEntry { id: string; span: Span | undefined; op: McpOpFacts | undefined }

/** What an MCP request's handling tells its op (lib/telemetry/mcp-server.ts). */
export interface McpOpFacts {
  failed(code: number, message: string): void
  result(result: { isError?: unknown }): void
}

const entryOf = (ctx: Context) => ctx.getValue(REQUEST) as RequestEntry | undefined

/** `parent` with this request's facts; without a span of its own, the span of the request it is part of stays toolgate's. */
export function requestContext(parent: Context, requestId: string, span: Span | undefined, op?: McpOpFacts): Context {
  const entry: RequestEntry = { id: requestId, span: span ?? entryOf(parent)?.span, op }
  const ctx = parent.setValue(REQUEST, entry)
  return span ? trace.setSpan(ctx, span) : ctx
}

/** The MCP request being served, while its telemetry is recorded (one property read while it is off). */
export const currentMcpOp = (): McpOpFacts | undefined => (telemetry() ? entryOf(context.active())?.op : undefined)

/** The request id of the request being served, when telemetry (or JSON logging) is on. */
export const currentRequestId = (): string | undefined => entryOf(context.active())?.id

/** toolgate's span of the request being served, when one is being recorded. */
export const requestSpan = (): Span | undefined => (telemetry() ? entryOf(context.active())?.span : undefined)

/** Spans ended during this turn of the event loop, with when each ended. */
let ending: { span: Span; at: number }[] = []

/**
 * End `span` now, as of now, but hand it to the span processor only once this turn is over:
 * the exporter's batch (which serializes its spans synchronously in the span.end() that fills
 * it) then never runs between a call's result and its answer.
 */
export function endSoon(span: Span): void {
  if (ending.push({ span, at: performance.now() }) === 1) setImmediate(endPending)
}

/** The spans endSoon holds, ended at the times they ended (also before a shutdown exports what is buffered). */
export function endPending(): void {
  const due = ending
  ending = []
  for (const e of due) e.span.end(e.at)
}

/** The active span's trace and span ids, for a log line; none outside a sampled trace. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  const sc = trace.getActiveSpan()?.spanContext()
  return sc && trace.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined
}

/**
 * The caller's trace context in an HTTP request's headers. Most requests carry none: then no
 * propagator runs (`fields`: the configured propagators' header names).
 */
export function extractHeaders(fields: readonly string[], headers: IncomingHttpHeaders): Context {
  for (const f of fields) if (headers[f] !== undefined) return propagation.extract(ROOT_CONTEXT, headers)
  return ROOT_CONTEXT
}
