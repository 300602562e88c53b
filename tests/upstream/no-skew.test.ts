import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { servers, toolApprovals } from '@/db/schema'
import { addServer } from '@/lib/admin/upstreams'
import { blockTool, approveTool, enableTool } from '@/lib/admin/tools'
import { enableServer, disableServer, quarantineServer, unquarantineServer } from '@/lib/admin/servers'
import { freshDb } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { rpcBody } from '@/tests/helpers/rpc'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { agentToken, connectionState, runtimeEnv, stdioFixture, waitFor } from './harness'

const KEY = 'tg_op_noskew_test_key_0000000000'
const EXT = 'app.mcpproxy/required-tools'
const ctx = { actor: 'test' }
let db: Db
let dbFile: string
let server: RunningServer
let mcp: Client
let agent: string
const gate = stdioFixture({ tools: [{ name: 'ok' }, { name: 'denied' }, { name: 'blocked' }, { name: 'changed' }, { name: 'fails', error: true }] })
const other = stdioFixture({ tools: [{ name: 't' }] })

beforeAll(async () => {
  ;({ db, file: dbFile } = freshDb())
  agent = await agentToken(db)
  // no pings: the only traffic an upstream sees is what the tests cause
  server = await startServer({ TOOLGATE_DB: dbFile, TOOLGATE_API_KEY: KEY, ...runtimeEnv, TOOLGATE_PING_INTERVAL_MS: '3600000', TOOLGATE_RELIST_INTERVAL_MS: '3600000' })
  await addServer(db, { name: 'gate', transport: gate.transport, trusted: true }, ctx)
  await addServer(db, { name: 'other', transport: other.transport, trusted: true }, ctx)
  await waitFor('gate and other ready', () => connectionState(db, 'gate')?.state === 'ready' && connectionState(db, 'other')?.state === 'ready')
  mcp = new Client({ name: 'no-skew-test', version: '1.0.0' })
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
})
afterAll(async () => {
  await mcp?.close()
  await server?.stop()
})

async function preflight(ids: string[]) {
  const res = await fetch(`${server.url}/api/v1/preflight`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ tools: ids.map((id) => ({ id })) }),
  })
  return (await res.json()).data.tools as { id: string; status: string; reason?: string; remediation?: string }[]
}

const call = async (id: string) => mcp.request({ method: 'tools/call', params: { name: id, arguments: { text: 'hi' } } }, CallToolResultSchema)

/**
 * tools/call refuses iff the preflight is not ready, with the same reason and remediation. The
 * runtime may change a state between a check and the call (a reconnect): agreement is judged on
 * a pair whose state was the same before and after the call, and a pair that straddled a change
 * is tried again.
 */
async function expectAgreement(ids: string[]) {
  const seen: string[] = []
  for (const id of ids) {
    for (let attempt = 1; ; attempt++) {
      const [v] = await preflight([id])
      const r = await call(id)
      const [after] = await preflight([id])
      if ((after.reason ?? after.status) !== (v.reason ?? v.status)) {
        if (attempt === 20) throw new Error(`${id}: its state kept changing under the check (${v.reason ?? v.status} → ${after.reason ?? after.status})`)
        continue
      }
      const facet = (r._meta as Record<string, { reason?: string; remediation?: string }> | undefined)?.[EXT]
      if (v.status === 'ready') {
        expect(facet, `${v.id}: preflight ready, so the call must reach the upstream`).toBeUndefined()
        expect(JSON.stringify(r.content)).toContain(v.id.split(':')[1])
      } else {
        expect(r.isError, `${v.id}: preflight says ${v.reason}, so the call must be refused`).toBe(true)
        expect(facet).toMatchObject({ reason: v.reason, remediation: v.remediation })
      }
      seen.push(v.status === 'ready' ? 'ready' : v.reason!)
      break
    }
  }
  return seen
}

describe('no skew between preflight and dispatch', () => {
  it('agrees on every shared gate, closed and then opened again', async () => {
    db.update(servers).set({ disabledTools: ['denied'] }).where(eq(servers.name, 'gate')).run()
    await blockTool(db, 'gate:blocked', ctx)
    gate.set({ tools: [{ name: 'ok' }, { name: 'denied' }, { name: 'blocked' }, { name: 'changed', description: 'a different promise' }, { name: 'fails', error: true }, { name: 'pending' }] })
    await waitFor('pending and changed discovered', () =>
      db.select().from(toolApprovals).where(eq(toolApprovals.serverName, 'gate')).all().filter((a) => a.status !== 'approved').length === 2)
    const ids = ['gate:ok', 'gate:denied', 'gate:blocked', 'gate:changed', 'gate:pending', 'other:t']
    expect(await expectAgreement(ids)).toEqual(['ready', 'tool_denied_by_config', 'tool_blocked_by_user', 'tool_changed', 'tool_pending_approval', 'ready'])

    // each step waits until the runtime has acted on it, so no state awaited below is one left from before
    const stopped = (why: string) => waitFor(`other stopped (${why})`, () => connectionState(db, 'other')?.detail === `stopped: the server is ${why}`)
    await quarantineServer(db, 'other', ctx)
    expect(await expectAgreement(['other:t'])).toEqual(['server_quarantined'])
    await stopped('quarantined')
    await unquarantineServer(db, 'other', ctx)
    await waitFor('other ready after its release', () => connectionState(db, 'other')?.state === 'ready')
    await disableServer(db, 'other', ctx)
    expect(await expectAgreement(['other:t'])).toEqual(['server_disabled'])
    await stopped('disabled')

    // open every gate again: both sides turn ready together
    await enableServer(db, 'other', ctx)
    db.update(servers).set({ disabledTools: [] }).where(eq(servers.name, 'gate')).run()
    await enableTool(db, 'gate:blocked', ctx)
    await approveTool(db, 'gate:changed', ctx)
    await approveTool(db, 'gate:pending', ctx)
    await waitFor('other ready again', () => connectionState(db, 'other')?.state === 'ready')
    expect(await expectAgreement(ids)).toEqual(['ready', 'ready', 'ready', 'ready', 'ready', 'ready'])
  })

  it('passes upstream tool errors through as tool errors, and records every call under its request id', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', 'x-request-id': 'job-42', authorization: `Bearer ${agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'gate:fails', arguments: {} } }),
    })
    const body = await rpcBody<{ result: { isError: boolean; content: unknown; _meta?: Record<string, unknown> } }>(res)
    expect(body.result.isError).toBe(true)
    expect(JSON.stringify(body.result.content)).toContain('failed on purpose')
    expect(body.result._meta?.[EXT]).toBeUndefined() // an upstream failure, not a refusal
    // the call, committed before the answer, and its outcome, appended after it (contract §12)
    const list = await waitFor('both parts of the call', async () => {
      const l = JSON.parse((await runCli(['activity', 'list', '--request-id', 'job-42', '-o', 'json', '--db', dbFile])).stdout)
      return l.length === 2 ? l : undefined
    })
    expect(list[0]).toMatchObject({ type: 'tool.call_outcome', server: 'gate', data: { call: list[1].id, target: 'gate:fails', outcome: 'tool_error' } })
    expect(list[1]).toMatchObject({ type: 'tool.call', server: 'gate', data: { target: 'gate:fails' }, call: { state: 'ended', end: { outcome: 'tool_error' } } })
  })
})

describe('zero upstream I/O in preflight', () => {
  it('thousands of checks on every surface send the upstreams nothing', async () => {
    const before = { gate: gate.received(), other: other.received() }
    const ids = ['gate:ok', 'gate:changed', 'gate:nope', 'other:t', 'other:x']
    const rider = { [EXT]: { tools: ids.map((id) => ({ id })) } }
    const resolveResult = z.object({ tool: z.object({ _meta: z.record(z.string(), z.object({ status: z.string() })) }) })
    let checks = 0
    for (let i = 0; i < 400; i++) {
      expect((await preflight(ids)).map((t) => t.status)).toContain('ready')
      const listed = await mcp.request({ method: 'tools/list', params: { _meta: rider } }, ListToolsResultSchema)
      expect((listed._meta?.[EXT] as { verdict: string }).verdict).toBe('unknown_ids')
      const resolved = await mcp.request({ method: 'tools/resolve', params: { name: 'gate:ok', arguments: {} } } as never, resolveResult)
      expect(resolved.tool._meta[EXT].status).toBe('ready')
      const checked = await mcp.request({ method: 'tools/call', params: { name: 'describe_tool', arguments: { tool_ids: ids, check: true } } }, CallToolResultSchema)
      expect(checked.isError).toBeFalsy()
      checks += 4
    }
    const cli = await runCli(['tools', 'preflight', ...ids, '--db', dbFile])
    expect(cli.code).toBe(12)
    checks += 1
    expect(checks).toBeGreaterThanOrEqual(1600)
    expect({ gate: gate.received(), other: other.received() }).toEqual(before)
  }, 240_000) // 1,601 sequential checks: ~40 s alone, far longer beside other suites on 2 cores
})

describe('shutdown', () => {
  it('when toolgate stops, its upstreams read as disconnected, not ready', async () => {
    expect(connectionState(db, 'gate')?.state).toBe('ready')
    await server.stop()
    expect(connectionState(db, 'gate')).toMatchObject({ state: 'disconnected', detail: 'toolgate stopped' })
    const cli = await runCli(['tools', 'preflight', 'gate:ok', '--db', dbFile])
    expect(cli.code).toBe(10) // server_unhealthy: retryable, not a stale "ready"
  })
})
