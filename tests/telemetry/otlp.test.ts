import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { getMetricsFromStream, type PromHistogramData, type PromData, type PromMetrics } from 'prom2javascript'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { activity } from '@/db/schema'
import { changeToolsIn } from '@/lib/admin/tools'
import { addServer } from '@/lib/admin/upstreams'
import { freshDb } from '@/tests/helpers/db'
import { startOtlpReceiver, type ReceivedSpan } from '@/tests/helpers/otlp-receiver'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { agentToken, connectionState, runtimeEnv, stdioFixture, waitFor } from '@/tests/upstream/harness'

// Telemetry out, end to end: a real toolgate exporting OTLP/HTTP (http/json) to a receiver in this
// process, and serving /metrics; an agent's call through it to a real stdio upstream.

const KEY = 'tg_op_telemetry_test_key_0000000'
const ctx = { actor: 'test' }
const SERVER_KIND = 2
const CLIENT_KIND = 3
const STATUS_ERROR = 2

let db: Db
let server: RunningServer
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>
let agent: string
const fx = stdioFixture({ tools: [{ name: 'echo' }, { name: 'broken', error: true }, { name: 'blocked' }] })

beforeAll(async () => {
  receiver = await startOtlpReceiver()
  let file: string
  ;({ db, file } = freshDb())
  agent = await agentToken(db)
  server = await startServer({
    TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, ...runtimeEnv,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'always_on', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_SERVICE_NAME: 'toolgate-under-test',
    // Prometheus on /metrics beside OTLP (no OTLP metrics: the receiver takes traces)
    OTEL_METRICS_EXPORTER: 'prometheus',
  })
  await addServer(db, { name: 'fx', transport: fx.transport, trusted: true }, ctx)
  await waitFor('fx ready', () => connectionState(db, 'fx')?.state === 'ready')
  await changeToolsIn(db, 'tool.blocked', ['fx:blocked'], ctx)
}, 120_000)
afterAll(async () => {
  await server?.stop()
  await receiver?.close()
})

async function agentClient() {
  const c = new Client({ name: 'telemetry-test', version: '1' })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
  return c
}

/** The agent's own span: a fresh trace, as an instrumented agent would send it. */
const agentSpan = () => ({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') })
const traceparent = (s: { traceId: string; spanId: string }) => `00-${s.traceId}-${s.spanId}-01`

const inTrace = (traceId: string, name: string, kind: number) => () =>
  receiver.spans().find((s) => s.traceId === traceId && s.span.name === name && s.span.kind === kind)

describe('traces per the MCP semantic conventions', { timeout: 120_000 }, () => {
  it("a tools/call with a traceparent in _meta: one trace, the agent's span → toolgate's SERVER span → the upstream CLIENT span, whose context the upstream received", async () => {
    const parent = agentSpan()
    const c = await agentClient()
    const result = await c.callTool({ name: 'fx:echo', arguments: { text: 'private words' }, _meta: { traceparent: traceparent(parent), tracestate: 'agent=1' } })
    await c.close()
    expect(result.isError).toBeFalsy()

    const serverSpan: ReceivedSpan = await waitFor('the SERVER span', inTrace(parent.traceId, 'tools/call fx:echo', SERVER_KIND))
    const clientSpan: ReceivedSpan = await waitFor('the CLIENT span', inTrace(parent.traceId, 'tools/call echo', CLIENT_KIND))
    expect(serverSpan.parentSpanId).toBe(parent.spanId)
    expect(clientSpan.parentSpanId).toBe(serverSpan.spanId)
    expect(serverSpan.service).toBe('toolgate-under-test')
    expect(serverSpan.attrs).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'fx:echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'gen_ai.agent.name': 'token:upstream-tests',
      'toolgate.verdict': 'ready',
    })
    expect(serverSpan.attrs['jsonrpc.request.id']).toMatch(/^\d+$/)
    expect(serverSpan.attrs['error.type']).toBeUndefined()
    // the request id is the one its activity records are under
    const requestId = serverSpan.attrs['toolgate.request_id'] as string
    expect(db.select().from(activity).where(eq(activity.requestId, requestId)).all().map((r) => r.type)).toContain('tool.call')
    expect(clientSpan.attrs).toMatchObject({
      'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'pipe', 'toolgate.server': 'fx',
    })
    // arguments and results stay off spans unless TOOLGATE_OTEL_CAPTURE_ARGUMENTS is set
    for (const s of [serverSpan, clientSpan]) {
      expect(s.attrs['gen_ai.tool.call.arguments']).toBeUndefined()
      expect(JSON.stringify(s.span)).not.toContain('private words')
    }
    // what the upstream received: toolgate's CLIENT span as the parent, the trace carried on
    const received = fx.calls().find((x) => x.name === 'echo' && (x._meta as { traceparent?: string } | undefined)?.traceparent?.includes(parent.traceId))
    expect(received?._meta?.traceparent).toBe(`00-${parent.traceId}-${clientSpan.spanId}-01`)
    expect(received?._meta?.tracestate).toBe('agent=1')
  })

  it('a blocked check carries its verdict and reason on the span', async () => {
    const parent = agentSpan()
    const c = await agentClient()
    const result = await c.callTool({ name: 'fx:blocked', arguments: {}, _meta: { traceparent: traceparent(parent) } })
    await c.close()
    expect(result.isError).toBe(true)
    const span = await waitFor('the SERVER span', inTrace(parent.traceId, 'tools/call fx:blocked', SERVER_KIND))
    expect(span.attrs).toMatchObject({ 'toolgate.verdict': 'blocked', 'toolgate.reason': 'tool_blocked_by_user', 'error.type': 'tool_error' })
    // nothing was sent upstream for it
    expect(receiver.spans().some((s) => s.traceId === parent.traceId && s.span.kind === CLIENT_KIND)).toBe(false)
  })

  it('a result with isError: error.type tool_error on both spans, and an ERROR status', async () => {
    const parent = agentSpan()
    const c = await agentClient()
    const result = await c.callTool({ name: 'fx:broken', arguments: {}, _meta: { traceparent: traceparent(parent) } })
    await c.close()
    expect(result.isError).toBe(true)
    const serverSpan = await waitFor('the SERVER span', inTrace(parent.traceId, 'tools/call fx:broken', SERVER_KIND))
    const clientSpan = await waitFor('the CLIENT span', inTrace(parent.traceId, 'tools/call broken', CLIENT_KIND))
    for (const s of [serverSpan, clientSpan]) {
      expect(s.attrs['error.type']).toBe('tool_error')
      expect(s.span.status.code).toBe(STATUS_ERROR)
    }
  })

  it('a JSON-RPC error: its code as error.type and rpc.response.status_code', async () => {
    const parent = agentSpan()
    const c = await agentClient()
    await expect(c.callTool({ name: 'nosuch:tool', arguments: {}, _meta: { traceparent: traceparent(parent) } })).rejects.toThrow(/Unknown tool/)
    await c.close()
    const span = await waitFor('the SERVER span', inTrace(parent.traceId, 'tools/call nosuch:tool', SERVER_KIND))
    expect(span.attrs).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' })
  })

  it('the HTTP traceparent continues the trace when _meta carries none', async () => {
    const parent = agentSpan()
    const c = new Client({ name: 'telemetry-test', version: '1' })
    await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}`, traceparent: traceparent(parent) } } }))
    await c.listTools()
    await c.close()
    const span = await waitFor('the tools/list SERVER span', inTrace(parent.traceId, 'tools/list', SERVER_KIND))
    expect(span.parentSpanId).toBe(parent.spanId)
  })
})

describe('REST spans', { timeout: 120_000 }, () => {
  it('POST /api/v1/preflight: a SERVER span under the caller\'s traceparent, with the check\'s verdict and reason', async () => {
    const parent = agentSpan()
    const res = await fetch(`${server.url}/api/v1/preflight`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', traceparent: traceparent(parent) },
      body: JSON.stringify({ tools: [{ id: 'fx:echo' }, { id: 'fx:blocked' }] }),
    })
    expect(res.status).toBe(200)
    const span = await waitFor('the REST span', inTrace(parent.traceId, 'POST /api/v1/preflight', SERVER_KIND))
    expect(span.parentSpanId).toBe(parent.spanId)
    expect(span.attrs).toMatchObject({
      'http.request.method': 'POST', 'http.route': '/api/v1/preflight', 'http.response.status_code': 200,
      'toolgate.verdict': 'blocked', 'toolgate.reason': 'tool_blocked_by_user', 'toolgate.request_id': res.headers.get('x-request-id'),
    })
  })
})

const scrape = (headers: Record<string, string> = {}) => fetch(`${server.url}/metrics`, { headers })
/** /metrics as a Prometheus text-format parser reads it. */
const scraped = async (): Promise<PromMetrics> => getMetricsFromStream(Readable.from([await (await scrape({ 'x-api-key': KEY })).text()]))
const matching = <T extends { labels: Record<string, string> }>(data: unknown, labels: Record<string, string>) =>
  (data as T[] | undefined ?? []).filter((d) => Object.entries(labels).every(([k, v]) => d.labels[k] === v))

describe('GET /metrics', { timeout: 120_000 }, () => {
  it('is refused without an operator credential', async () => {
    expect((await scrape()).status).toBe(401)
    expect((await scrape({ authorization: `Bearer ${agent}` })).status).toBe(403)
    expect((await scrape({ 'x-api-key': 'tg_op_wrong' })).status).toBe(401)
  })

  it('in the Prometheus text format: the histograms count the calls made, the checks count by verdict and surface, upstream states', async () => {
    const count = (m: PromMetrics, name: string, labels: Record<string, string>) => matching<PromHistogramData>(m[name]?.data, labels).reduce((n, d) => n + d.count, 0)
    const echoes = (m: PromMetrics) => count(m, 'mcp_server_operation_duration', { mcp_method_name: 'tools/call', gen_ai_tool_name: 'fx:echo' })
    const upstreamEchoes = (m: PromMetrics) => count(m, 'mcp_client_operation_duration', { mcp_method_name: 'tools/call', gen_ai_tool_name: 'echo', toolgate_server: 'fx', network_transport: 'pipe' })
    const before = await scraped()
    const c = await agentClient()
    for (let i = 0; i < 3; i++) await c.callTool({ name: 'fx:echo', arguments: { text: String(i) } })
    await c.close()

    const res = await scrape({ 'x-api-key': KEY })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    const after = await scraped()
    expect(echoes(after) - echoes(before)).toBe(3)
    expect(upstreamEchoes(after) - upstreamEchoes(before)).toBe(3)
    const duration = after.mcp_server_operation_duration
    expect(duration.type).toBe('histogram')
    // the conventions' bucket boundaries, and every call counted in +Inf
    const echo = matching<PromHistogramData>(duration.data, { gen_ai_tool_name: 'fx:echo' })[0]
    expect(Object.keys(echo.buckets).map((b) => (b === '+Inf' ? Infinity : Number(b))).sort((a, b) => a - b)).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, Infinity])
    expect(echo.buckets['+Inf']).toBe(echo.count)

    const checks = after.toolgate_checks_total
    expect(checks.type).toBe('counter')
    expect(matching<PromData>(checks.data, { toolgate_surface: 'mcp-call', toolgate_verdict: 'ready' })[0].value).toBeGreaterThanOrEqual(3)
    expect(matching<PromData>(checks.data, { toolgate_surface: 'mcp-call', toolgate_verdict: 'blocked' })[0].value).toBeGreaterThanOrEqual(1)
    const state = after.toolgate_upstream_state.data
    expect(matching<PromData>(state, { toolgate_server: 'fx', toolgate_state: 'ready' })[0].value).toBe(1)
    expect(matching<PromData>(state, { toolgate_server: 'fx', toolgate_state: 'error' })[0].value).toBe(0)
    expect((after.toolgate_held_calls_pending.data as PromData[])[0].value).toBe(0)
    expect(after.toolgate_activity_commit_batch_size.type).toBe('histogram')
    expect((after.toolgate_activity_commit_batch_size.data as PromHistogramData[])[0].count).toBeGreaterThan(0)
  })
})

describe('the Grafana dashboard (docs/grafana-dashboard.json)', { timeout: 120_000 }, () => {
  it('queries only metrics and labels /metrics serves', async () => {
    const dashboard = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', '..', 'docs', 'grafana-dashboard.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] }
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr))
    const served = await scraped()
    const labelsOf = (name: string) => new Set((served[name]?.data as { labels: Record<string, string> }[] | undefined ?? []).flatMap((d) => Object.keys(d.labels)))
    for (const expr of exprs) {
      // metric names: what is left once label lists and selectors are taken out
      const names = [...expr.replace(/by \([^)]*\)|\{[^}]*\}/g, '').matchAll(/\b(?:toolgate|mcp)_[a-z_]+\b/g)].map(([n]) => n)
      expect(names.length, expr).toBeGreaterThan(0)
      const families = names.map((n) => (served[n] ? n : n.replace(/_(bucket|count|sum)$/, '')))
      for (const f of families) expect(served[f], `${f} in: ${expr}`).toBeDefined()
      const labels = [...expr.matchAll(/by \(([^)]*)\)/g), ...expr.matchAll(/\{([^}]*)\}/g)]
        .flatMap(([, list]) => list.split(',').map((l) => l.trim().split(/[=!~]/)[0].trim())).filter((l) => l && l !== 'le')
      for (const l of labels) expect(families.some((f) => labelsOf(f).has(l)), `label ${l} in: ${expr}`).toBe(true)
    }
  })
})
