import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import path from 'node:path'
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api'
import { buildDir } from '@/lib/core/paths'
import { extractHeaders, requestContext, requestSpan } from './context'
import { ATTR, TOOLGATE } from './names'
import { telemetry, type Telemetry } from './state'

/** The REST routes, by path: a span is named for its route, never for a path a client made up. */
const REST_ROUTES = new Set(['/api/v1/preflight', '/api/v1/whoami'])

let actionNames: Map<string, string> | undefined
/** A server action's exported name, by the id Next.js gives it (the build's server-reference manifest). */
function actionName(id: string): string {
  if (!actionNames) {
    actionNames = new Map()
    try {
      const manifest = JSON.parse(readFileSync(path.join(buildDir(), 'server', 'server-reference-manifest.json'), 'utf8')) as { node?: Record<string, { exportedName?: string }> }
      for (const [key, entry] of Object.entries(manifest.node ?? {})) if (entry.exportedName) actionNames.set(key, entry.exportedName)
    } catch { /* no manifest (dev): actions are named by id */ }
  }
  return actionNames.get(id) ?? id.slice(0, 12)
}

/** A REST or dashboard-action span's attributes, built by assignment (see lib/telemetry/mcp-server.ts). */
function httpAttributes(req: IncomingMessage, reqPath: string, requestId: string): Attributes {
  const attrs: Attributes = { [ATTR.HTTP_REQUEST_METHOD]: req.method ?? '_OTHER', [TOOLGATE.REQUEST_ID]: requestId }
  if (REST_ROUTES.has(reqPath)) attrs[ATTR.HTTP_ROUTE] = reqPath
  const action = req.headers['next-action']
  if (typeof action === 'string') attrs[TOOLGATE.ACTION] = actionName(action)
  return attrs
}

/**
 * One HTTP request's telemetry context in the front door: its request id for log lines, and a
 * SERVER span for the REST API and for dashboard actions (an MCP request gets its own span
 * once its JSON-RPC message is read; pages get Next.js's own spans). The caller's HTTP trace
 * context is its parent.
 */
export class RequestScope {
  private readonly span: Span | undefined
  private readonly ctx: Context

  constructor(t: Telemetry, req: IncomingMessage, name: string | undefined, reqPath: string, requestId: string) {
    const parent = t.tracer ? extractHeaders(t.propagationFields ?? [], req.headers) : ROOT_CONTEXT
    this.span = t.tracer && name ? t.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: httpAttributes(req, reqPath, requestId) }, parent) : undefined
    this.ctx = requestContext(parent, requestId, this.span)
  }

  /** Serve the request in this context; the span ends with the response's status. */
  async run<A extends unknown[]>(fn: (...args: A) => Promise<void>, res: ServerResponse, ...args: A): Promise<void> {
    try {
      await context.with(this.ctx, fn, undefined, ...args)
    } finally {
      if (this.span) {
        this.span.setAttribute(ATTR.HTTP_RESPONSE_STATUS_CODE, res.statusCode)
        if (res.statusCode >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR })
        this.span.end()
      }
    }
  }
}

/** The span's name of a REST request or a dashboard action; none for anything else. */
function spanName(req: IncomingMessage, reqPath: string): string | undefined {
  if (reqPath.startsWith('/api/v1/')) return `${req.method} ${REST_ROUTES.has(reqPath) ? reqPath : '/api/v1'}`
  const action = req.headers['next-action']
  return typeof action === 'string' && req.method === 'POST' ? `dashboard action ${actionName(action)}` : undefined
}

const isMcp = (reqPath: string) => reqPath === '/mcp' || reqPath.startsWith('/mcp/')

/**
 * The front door's scope for one request; undefined while telemetry (and JSON logging) is off,
 * and for an MCP request that only its MCP op records (lib/telemetry/mcp-server.ts makes its
 * context): a scope there would carry nothing but the request id, which only JSON logs read.
 */
export function requestScope(req: IncomingMessage, reqPath: string, requestId: string): RequestScope | undefined {
  const t = telemetry()
  if (!t) return undefined
  const name = t.tracer ? spanName(req, reqPath) : undefined
  return name || t.jsonLogs || !isMcp(reqPath) ? new RequestScope(t, req, name, reqPath, requestId) : undefined
}

/** A dashboard action's outcome, on its span: refused or failed actions answer 200 with ok: false. */
export function noteAction<R extends { ok: boolean }>(result: R): R {
  if (!result.ok) requestSpan()?.setAttribute(ATTR.ERROR_TYPE, 'action_refused')
  return result
}
