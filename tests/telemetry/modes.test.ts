import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getMetricsFromStream, type PromHistogramData } from 'prom2javascript'
import { AGENT, demoState, OPERATOR_KEY, startHarness, type Harness } from '@/tests/mcp/harness'

// The two ends of the switch: everything off (the SDK never loads, /metrics says how to turn it
// on), and metrics only, scraped from this machine without a credential, with JSON logs.

const hook = path.resolve(import.meta.dirname, '..', 'helpers', 'trace-loads.mjs')
const call = (h: Harness) => fetch(h.mcp, {
  method: 'POST',
  headers: { authorization: `Bearer ${AGENT}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
})

describe('telemetry off (nothing set)', { timeout: 120_000 }, () => {
  let h: Harness
  const loads = path.join(mkdtempSync(path.join(tmpdir(), 'toolgate-loads-')), 'server.txt')
  beforeAll(async () => {
    h = await startHarness(demoState(), { NODE_OPTIONS: `--import ${hook}`, TOOLGATE_TRACE_LOADS: loads })
  }, 120_000)
  afterAll(async () => h?.server.stop())

  it('/metrics names the switch; and the OpenTelemetry SDK is never loaded', async () => {
    expect((await call(h)).status).toBe(200)
    const res = await fetch(`${h.server.url}/metrics`, { headers: { 'x-api-key': OPERATOR_KEY } })
    expect(res.status).toBe(404)
    expect(await res.text()).toContain('OTEL_METRICS_EXPORTER=prometheus')
    await h.server.stop()
    const loaded = readFileSync(loads, 'utf8')
    expect(loaded).toContain('/node_modules/next/') // the hook saw the server's modules
    expect(loaded).not.toMatch(/@opentelemetry\/(sdk-|exporter-|context-async-hooks)/)
  })
})

describe('metrics only, loopback scrapes allowed, JSON logs', { timeout: 120_000 }, () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness(demoState(), { OTEL_METRICS_EXPORTER: 'prometheus', TOOLGATE_METRICS_LOOPBACK: '1', TOOLGATE_LOG_FORMAT: 'json' })
  }, 120_000)
  afterAll(async () => h?.server.stop())

  it('a loopback caller scrapes without a credential; the server span duration counts the request', async () => {
    expect((await call(h)).status).toBe(200)
    const res = await fetch(`${h.server.url}/metrics`)
    expect(res.status).toBe(200)
    const metrics = await getMetricsFromStream(Readable.from([await res.text()]))
    const lists = (metrics.mcp_server_operation_duration.data as PromHistogramData[]).find((d) => d.labels.mcp_method_name === 'tools/list')
    expect(lists?.count).toBeGreaterThanOrEqual(1)
  })

  it('every line the server wrote is one JSON object', () => {
    const lines = h.server.log().split('\n').filter(Boolean)
    expect(lines.length).toBeGreaterThan(0)
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ time: expect.any(String), level: expect.any(String), msg: expect.any(String) })
  })
})
