import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { activity, toolApprovals } from '@/db/schema'
import { addServer } from '@/lib/admin/upstreams'
import { requestInspection, unquarantineServer } from '@/lib/admin/servers'
import { knownTools } from '@/db/queries/tools'
import { freshDb } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { rpcBody } from '@/tests/helpers/rpc'
import { freePort, startServer, type RunningServer } from '@/tests/helpers/server'
import { FIXTURE, agentToken, connectionState, runtimeEnv, stdioFixture, waitFor } from '@/tests/upstream/harness'

// Quarantine you can inspect: a quarantined server's tools are listed for review and never
// served, called or suggested; release approves exactly what was shown.

const KEY = 'tg_op_inspection_test_key_000000'
const ctx = { actor: 'test' }
let db: Db
let dbFile: string
let server: RunningServer
let agent: string

beforeAll(async () => {
  ;({ db, file: dbFile } = freshDb())
  agent = await agentToken(db)
  server = await startServer({ TOOLGATE_DB: dbFile, TOOLGATE_API_KEY: KEY, ...runtimeEnv })
})
afterAll(async () => {
  await server?.stop()
})

async function preflight(id: string) {
  const res = await fetch(`${server.url}/api/v1/preflight`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ tools: [{ id }] }),
  })
  return (await res.json()).data.tools[0] as { status: string; reason?: string; did_you_mean?: string[] }
}
const reasonOf = async (id: string) => {
  const t = await preflight(id)
  return t.status === 'ready' ? 'ready' : t.reason
}
async function mcp(method: string, params: Record<string, unknown>) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${agent}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return rpcBody(res)
}
const served = async () => ((await mcp('tools/list', {})).result!.tools as { name: string }[]).map((t) => t.name)
const listed = async (name: string) => {
  const r = await runCli(['tools', 'list', '--server', name, '-o', 'json', '--db', dbFile])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as { id: string; status: string; pin: string | null }[]
}
const approval = (s: string, t: string) => db.select().from(toolApprovals).where(and(eq(toolApprovals.serverName, s), eq(toolApprovals.toolName, t))).get()

describe('a quarantined stdio server', () => {
  const fx = stdioFixture({ tools: [{ name: 'hello' }, { name: 'wipe', annotations: { destructiveHint: true } }] })

  const neighbour = stdioFixture({ tools: [{ name: 'other' }] })

  it('is not started until an operator asks: starting it runs its code', async () => {
    // a ready neighbour whose near-miss ids would point at insp's tools, were they suggestible
    await addServer(db, { name: 'insr', transport: neighbour.transport, trusted: true }, ctx)
    await addServer(db, { name: 'insp', transport: fx.transport }, ctx)
    await waitFor('insr ready', () => connectionState(db, 'insr')?.state === 'ready')
    await new Promise((r) => setTimeout(r, 1500))
    expect(fx.received()).toBe(0)
    expect(await listed('insp')).toEqual([])
  })

  it('toolgate upstream inspect lists its tools for review; they are never served, called or suggested', async () => {
    const r = await runCli(['upstream', 'inspect', 'insp', '--db', dbFile])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('insp:hello')
    expect(r.stdout).toContain('insp:wipe')
    expect(fx.received()).toBeGreaterThan(0) // it really was started and listed
    expect((await listed('insp')).map((t) => [t.id, t.status])).toEqual([['insp:hello', 'server_quarantined'], ['insp:wipe', 'server_quarantined']])
    const show = await runCli(['tools', 'show', 'insp:wipe', '-o', 'json', '--db', dbFile])
    expect(JSON.parse(show.stdout).definition).toMatchObject({ name: 'wipe', annotations: { destructiveHint: true } })

    expect(await reasonOf('insp:hello')).toBe('server_quarantined')
    expect(await served()).not.toContain('insp:hello')
    const call = await mcp('tools/call', { name: 'insp:hello', arguments: { text: 'x' } })
    expect(call.result?.isError).toBe(true)
    expect(fx.calls()).toEqual([])
    // a near miss is never pointed at a tool under quarantine
    const miss = await preflight('insr:hello')
    expect(miss.reason).toBe('not_found')
    expect(miss.did_you_mean ?? []).not.toContain('insp:hello')
    expect(db.select().from(activity).where(and(eq(activity.type, 'server.inspected'), eq(activity.server, 'insp'))).all()).toHaveLength(1)
  })

  it('release approves what was shown; a tool added or changed after the inspection arrives pending or changed', async () => {
    fx.set({ tools: [{ name: 'hello' }, { name: 'wipe', description: 'Now wipes everything, quietly.', annotations: { destructiveHint: true } }, { name: 'later' }] })
    const r = await runCli(['upstream', 'unquarantine', 'insp', '--db', dbFile])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('approved as shown: hello, wipe')
    await waitFor('insp ready', () => connectionState(db, 'insp')?.state === 'ready')
    await waitFor('later discovered', () => approval('insp', 'later'))
    expect(await reasonOf('insp:hello')).toBe('ready')
    expect(await reasonOf('insp:wipe')).toBe('tool_changed')
    expect(await reasonOf('insp:later')).toBe('tool_pending_approval')
    // and now a near miss may be pointed at it
    expect((await preflight('insr:hello')).did_you_mean).toContain('insp:hello')
  })
})

describe('a quarantined HTTP server', () => {
  const fx = stdioFixture({ tools: [{ name: 'search' }, { name: 'post' }] })
  let upstream: ChildProcess
  afterAll(() => { upstream?.kill() })

  it('is inspected as soon as it is added, and stays unserved', async () => {
    const port = await freePort()
    upstream = spawn(process.execPath, [FIXTURE], { env: { ...process.env, ...fx.httpEnv(port) }, stdio: 'ignore' })
    await waitFor('the HTTP fixture listening', () => fetch(`http://127.0.0.1:${port}/mcp`).then(() => true, () => false))
    await addServer(db, { name: 'web', transport: { url: `http://127.0.0.1:${port}/mcp` } }, ctx)
    await waitFor('web inspected', () => knownTools(db, 'web').length === 2)
    expect((await listed('web')).map((t) => t.status)).toEqual(['server_quarantined', 'server_quarantined'])
    expect(await reasonOf('web:search')).toBe('server_quarantined')
    expect(await served()).not.toContain('web:search')
    expect(fx.calls()).toEqual([])
  })

  it('the dashboard’s release approves the pins on screen only: a pin that moved since stays pending', async () => {
    const shown = Object.fromEntries((await listed('web')).map((t) => [t.id.slice('web:'.length), t.pin!]))
    shown.post = `sha256/v3:${'0'.repeat(64)}` // what the operator saw is not what is stored now
    const r = await unquarantineServer(db, 'web', ctx, shown)
    expect(r.note).toBe('approved as shown: search; pending (changed since shown, or not shown): post')
    await waitFor('web ready', () => connectionState(db, 'web')?.state === 'ready')
    expect(await reasonOf('web:search')).toBe('ready')
    expect(await reasonOf('web:post')).toBe('tool_pending_approval')
  })

  it('an Inspect request reaches the runtime for a stdio server too', async () => {
    const fx2 = stdioFixture({ tools: [{ name: 'one' }] })
    await addServer(db, { name: 'asked', transport: fx2.transport }, ctx)
    expect(fx2.received()).toBe(0)
    await requestInspection(db, 'asked', ctx)
    await waitFor('asked inspected', () => knownTools(db, 'asked').length === 1)
    expect(await reasonOf('asked:one')).toBe('server_quarantined')
    expect(fx2.calls()).toEqual([])
  })
})
