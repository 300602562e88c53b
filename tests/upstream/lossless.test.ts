import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { EXTENSION_ID } from '@/lib/schemas/extension'
import { rpcBody } from '@/tests/helpers/rpc'
import { startGateway } from '@/tests/helpers/gateway'
import type { RunningServer } from '@/tests/helpers/server'
import { stdioFixture, waitFor } from './harness'

// Results, errors, request _meta and cancellation reasons pass through toolgate as the upstream
// and the client gave them: nothing dropped, reshaped or re-worded.

const KEY = 'tg_op_lossless_test_key_000000000'
// what a real server sends beyond the SDK's schemas: the commands server names its streams
const GIVEN = {
  content: [
    { type: 'text', text: 'hello', name: 'STDOUT' },
    { type: 'text', text: 'oops', name: 'STDERR', annotations: { audience: ['user'], priority: 0.5 }, _meta: { 'com.example/line': 3 } },
  ],
  structuredContent: { exitCode: 1, streams: { out: 'hello', err: 'oops' } },
  _meta: { 'com.example/run': { id: 'r1', host: null } },
  isError: false,
}
const fx = stdioFixture({
  tools: [
    { name: 'extra', result: GIVEN },
    { name: 'quota', rpcError: { code: -32042, message: 'quota exceeded for this key', data: { retryAfterSeconds: 5 } } },
    { name: 'echo' },
    { name: 'slow', sleepMs: 60_000 },
  ],
})

let server: RunningServer
let agent: string
beforeAll(async () => {
  ;({ server, agent } = await startGateway(KEY, { upstreams: { fx: fx.transport } }))
})
afterAll(async () => {
  await server?.stop()
})

async function rpc(body: unknown, version = '2025-11-25') {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version, authorization: `Bearer ${agent}` },
    body: JSON.stringify(body),
  })
  return rpcBody<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }>(res)
}
const call = (name: string, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, ...extra } })

describe('lossless proxying', () => {
  it('a result passes through field for field: extra content-block fields, structuredContent, _meta', async () => {
    expect((await rpc(call('fx:extra'))).result).toEqual(GIVEN)
  })

  it('an upstream JSON-RPC error stays a JSON-RPC error, with the upstream\'s code, message and data (no prefix added)', async () => {
    expect(await rpc(call('fx:quota'))).toMatchObject({ error: { code: -32042, message: 'quota exceeded for this key', data: { retryAfterSeconds: 5 } } })
  })

  it('the client\'s request _meta reaches the upstream (custom keys, traceparent); toolgate\'s own keys do not', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
    const meta = { 'com.example/request': { tenant: 't-7' }, traceparent, progressToken: 'client-token', [EXTENSION_ID]: { tools: [{ id: 'fx:echo' }] } }
    expect((await rpc(call('fx:echo', { _meta: meta }))).result?.isError ?? false).toBe(false)
    const seen = fx.calls().filter((c) => c.name === 'echo').at(-1)!._meta!
    expect(seen['com.example/request']).toEqual({ tenant: 't-7' })
    expect(seen.traceparent).toBe(traceparent)
    // the upstream's progress token is toolgate's own (progress comes back under the client's)
    expect(seen.progressToken).toMatch(/^tg_/)
    expect(seen).not.toHaveProperty(EXTENSION_ID)
  })

  it('a cancellation\'s reason reaches the upstream as the client gave it', async () => {
    const c = new Client({ name: 'lossless-test', version: '1' })
    await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    try {
      const stop = new AbortController()
      const pending = c.callTool({ name: 'fx:slow', arguments: {} }, undefined, { signal: stop.signal }).catch((e: unknown) => e)
      await waitFor('the slow call reached the upstream', () => fx.calls().some((x) => x.name === 'slow' && !x.cancelled))
      stop.abort('the user changed their mind')
      await pending
      const cancelled = await waitFor('the upstream saw the cancellation', () => fx.calls().find((x) => x.name === 'slow' && x.cancelled))
      expect(cancelled.reason).toBe('the user changed their mind')
    } finally {
      await c.close()
    }
  })
})
