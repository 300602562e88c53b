import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { activity } from '@/db/schema'
import { updateSettings } from '@/lib/admin/settings'
import { CALL_APPROVAL_TTL_MS } from '@/db/queries/calls'
import { expireCalls } from '@/lib/approvals/calls'
import { runCli } from '@/tests/helpers/cli'
import { agentClient, startGateway } from '@/tests/helpers/gateway'
import type { RunningServer } from '@/tests/helpers/server'
import { stdioFixture, waitFor } from '@/tests/upstream/harness'

// Call approval end to end: a real MCP client calls a tool under call approval through
// toolgate, and an operator decides on that exact call with the CLI.

const KEY = 'tg_op_call_approval_test_key_000'
const ctx = { actor: 'test' }
let db: Db
let dbFile: string
let server: RunningServer
let mcp: Client
const fx = stdioFixture({ tools: [{ name: 'send', annotations: { destructiveHint: true, openWorldHint: true } }, { name: 'free' }] })

beforeAll(async () => {
  const gateway = await startGateway(KEY, { upstreams: { mail: fx.transport } })
  ;({ db, dbFile, server } = gateway)
  const on = await runCli(['tools', 'call-approval', 'mail:send', 'on', '--db', dbFile])
  expect(on.code, on.stderr).toBe(0)
  mcp = await agentClient(gateway, 'call-approval-test')
})
afterAll(async () => {
  await mcp?.close()
  await server?.stop()
})

const holdFor = (ms: number) => updateSettings(db, { call_approval_wait_ms: ms }, ctx)
const call = (args: Record<string, unknown>, name = 'mail:send', onprogress?: (p: Progress) => void) =>
  mcp.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout: 60_000, onprogress }) as Promise<CallToolResult>
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text
const callId = (r: CallToolResult) => (r.structuredContent as { call_id: string }).call_id
/** arguments compared as toolgate keeps them: canonical JSON, keys sorted */
const same = (a: Record<string, unknown>, b: Record<string, unknown>) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort())
interface Listed { id: string; status: string; tool: string; arguments: Record<string, unknown>; caller: string; request_id: string; reason?: string }
async function calls(status?: string): Promise<Listed[]> {
  const r = await runCli(['calls', 'list', ...(status ? ['--status', status] : []), '-o', 'json', '--db', dbFile])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}
const pendingFor = (args: Record<string, unknown>) => waitFor('the held call listed', async () =>
  (await calls('pending')).find((c) => same(c.arguments, args)))
const decide = async (verb: 'approve' | 'deny', id: string, ...extra: string[]) => {
  const r = await runCli(['calls', verb, id, ...extra, '--db', dbFile])
  expect(r.code, r.stderr).toBe(0)
}
const runs = (args: Record<string, unknown>) => fx.calls().filter((c) => c.name === 'send' && c.arguments && same(c.arguments, args)).length

describe('call approval', () => {
  it('the tool is still ready in preflight, and tools without it run at once', async () => {
    const res = await fetch(`${server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ tools: [{ id: 'mail:send' }] }),
    })
    expect((await res.json()).data.verdict).toBe('ready')
    expect(text(await call({ text: 'x' }, 'mail:free'))).toBe('free: {"text":"x"}')
  })

  it('approve: the waiting call runs once with its arguments and the agent gets the upstream result; every step shares the request id', async () => {
    await holdFor(30_000)
    const args = { to: 'ops@example.com', body: 'weekly report' }
    const answer = call(args)
    const held = await pendingFor(args)
    expect(held).toMatchObject({ tool: 'mail:send', caller: 'token:upstream-tests', arguments: args })
    expect(runs(args)).toBe(0)
    await decide('approve', held.id)
    const r = await answer
    expect(r.isError).toBeFalsy()
    expect(text(r)).toBe(`send: ${JSON.stringify(args)}`)
    expect(runs(args)).toBe(1)
    // the request before the wait, the decision when made, then the call and (after the answer) its outcome
    const types = await waitFor('the outcome on the record', () => {
      const t = db.select().from(activity).where(eq(activity.requestId, held.request_id)).all().map((a) => a.type)
      return t.length === 4 ? t : undefined
    })
    expect(types).toEqual(['call.approval_requested', 'call.approved', 'tool.call', 'tool.call_outcome'])
  })

  it('deny: the agent gets an isError result saying it was denied and why, and nothing runs', async () => {
    const args = { to: 'attacker@example.net', body: 'all the secrets' }
    const answer = call(args)
    const held = await pendingFor(args)
    await decide('deny', held.id, '--reason', 'unknown recipient')
    const r = await answer
    expect(r.isError).toBe(true)
    expect(text(r)).toContain('denied by an operator: unknown recipient')
    expect(runs(args)).toBe(0)
    expect((await calls('denied')).find((c) => c.id === held.id)?.reason).toBe('unknown recipient')
  })

  it('no decision in time: the agent hears it awaits approval (with the call id); an identical retry joins the request and runs once approved', async () => {
    await holdFor(1000)
    const args = { to: 'team@example.com', body: 'retry me' }
    const first = await call(args)
    expect(first.isError).toBe(true)
    expect(text(first)).toContain('awaits an operator')
    const id = callId(first)
    expect(text(first)).toContain(id)
    const again = await call(args)
    expect(callId(again)).toBe(id) // joined, not a second request
    expect((await calls()).filter((c) => same(c.arguments, args))).toHaveLength(1)
    await decide('approve', id)
    expect(runs(args)).toBe(0) // approved, but nobody waiting: it runs for the next identical retry
    const ran = await call(args)
    expect(text(ran)).toBe(`send: ${JSON.stringify(args)}`)
    expect(runs(args)).toBe(1)
    // an approval is for one call: calling again asks again
    const next = await call(args)
    expect(next.isError).toBe(true)
    expect(callId(next)).not.toBe(id)
    expect(runs(args)).toBe(1)
  })

  it('different arguments are a new request, and approving one does not approve the other', async () => {
    await holdFor(1000)
    const a = { to: 'a@example.com', body: 'same' }
    const b = { to: 'b@example.com', body: 'same' }
    const ra = await call(a)
    const rb = await call(b)
    expect(callId(ra)).not.toBe(callId(rb))
    await decide('approve', callId(ra))
    expect(text(await call(a))).toBe(`send: ${JSON.stringify(a)}`)
    const stillHeld = await call(b)
    expect(stillHeld.isError).toBe(true)
    expect(callId(stillHeld)).toBe(callId(rb))
    expect(runs(b)).toBe(0)
  })

  it('two concurrent identical calls make one request, run once, and both get the result', async () => {
    await holdFor(30_000)
    const args = { to: 'both@example.com', body: 'once' }
    const reported: [string[], string[]] = [[], []]
    const [one, two] = reported.map((messages) => call(args, 'mail:send', (p) => void messages.push(p.message ?? '')))
    const held = await pendingFor(args)
    // a waiting call reports, as progress, the request it waits on: both wait on the one held
    await waitFor('both calls waiting on the held request', () => reported.every((messages) => messages.some((m) => m.includes(held.id))))
    expect((await calls()).filter((c) => same(c.arguments, args))).toHaveLength(1)
    await decide('approve', held.id)
    const [r1, r2] = await Promise.all([one, two])
    expect(text(r1)).toBe(`send: ${JSON.stringify(args)}`)
    expect(text(r2)).toBe(text(r1))
    expect(runs(args)).toBe(1)
  })

  it('a request nobody decides expires after an hour: the waiting agent hears so, and it can no longer be approved', async () => {
    await holdFor(30_000)
    const args = { to: 'late@example.com', body: 'too late' }
    const answer = call(args)
    const held = await pendingFor(args)
    await expireCalls(db, Date.now() + CALL_APPROVAL_TTL_MS + 1000) // an hour passes
    const r = await answer
    expect(r.isError).toBe(true)
    expect(text(r)).toContain('expired')
    const late = await runCli(['calls', 'approve', held.id, '--db', dbFile])
    expect(late.code).toBe(1)
    expect(late.stderr).toContain('is expired, not pending')
    expect(runs(args)).toBe(0)
    expect(db.select().from(activity).where(eq(activity.requestId, held.request_id)).all().map((a) => a.type)).toEqual(expect.arrayContaining(['call.approval_requested', 'call.expired']))
  })
})
