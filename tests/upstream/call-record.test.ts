import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Browser } from 'playwright-core'
import type { Db } from '@/db/client'
import { activity } from '@/db/schema'
import { readLease } from '@/db/queries/connections'
import { OUTCOME_UNKNOWN } from '@/lib/activity/present'
import type { ActivityRecord } from '@/lib/core/activity'
import { addServer } from '@/lib/admin/upstreams'
import { argumentsHash, canonicalJson } from '@/lib/preflight/hash'
import { launchChromium, OPERATOR_KEY, signedIn, visit } from '@/tests/dashboard/harness'
import { freshDb } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { rpcBody } from '@/tests/helpers/rpc'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { evaluateNow } from '@/lib/gate/check'
import { agentCaller } from '@/lib/auth/caller'
import { agentToken, connectionState, runtimeEnv, stdioFixture, waitFor } from './harness'

// A tools/call is on the record in two parts (contract §12): the call, committed while the
// upstream works — its answer waits for that commit, and a failed commit fails the answer —
// then its outcome. A crash between the two leaves a call whose outcome reads "unknown".

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-call-record-'))
const release = (name: string) => writeFileSync(path.join(dir, name), '')
const releaseFile = (name: string) => path.join(dir, name)
const SLEEPS = [0, 40, 80, 120, 160]
const fx = stdioFixture({
  tools: [{ name: 'ok' }, { name: 'live', releaseFile: releaseFile('live') }, { name: 'crash', releaseFile: releaseFile('crash') }, ...SLEEPS.map((ms, i) => ({ name: `s${i}`, sleepMs: ms }))],
})

let db: Db
let file: string
let server: RunningServer
let agent: string
let browser: Browser
const servers: RunningServer[] = []
// a short lease: after a crash the runtime is known gone within seconds, without a restart (long
// enough that a live runtime's renewals, every third of it, survive a loaded machine's delays)
const env = () => ({ TOOLGATE_DB: file, TOOLGATE_API_KEY: OPERATOR_KEY, ...runtimeEnv, TOOLGATE_RUNTIME_LEASE_MS: '6000' })

beforeAll(async () => {
  ;({ db, file } = freshDb())
  agent = await agentToken(db)
  server = await startServer(env())
  servers.push(server)
  await addServer(db, { name: 'rec', transport: fx.transport, trusted: true }, { actor: 'test' })
  await waitFor('rec ready', () => connectionState(db, 'rec')?.state === 'ready')
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  for (const s of servers) await s.stop()
})

let nextId = 1
/** One tools/call as a 2025-11-25 client sends it. */
async function call(name: string, args: Record<string, unknown>, requestId?: string) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${agent}`,
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }),
  })
  return { requestId: res.headers.get('x-request-id')!, body: await rpcBody<{ result?: { isError?: boolean; content: { text: string }[] }; error?: { code: number; message: string } }>(res) }
}

const records = (requestId: string) => db.select().from(activity).where(eq(activity.requestId, requestId)).orderBy(activity.id).all() as ActivityRecord[]
const callsOf = (target: string) => (db.select().from(activity).where(eq(activity.type, 'tool.call')).all() as ActivityRecord[])
  .filter((r) => r.type === 'tool.call' && r.data.target === target)
const cliList = async (requestId: string) => {
  const r = await runCli(['activity', 'list', '--request-id', requestId, '-o', 'json', '--db', file])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as { id: number; type: string; summary: string; call?: { state: string; end?: { outcome: string } } }[]
}

describe('a call is recorded while the upstream works, and its outcome after', () => {
  it('the call reads as running (CLI and the live Activity page) until its outcome lands, then as ended', async () => {
    const { context, page } = await signedIn({ db, file, server, browser, stop: async () => {} })
    await visit(page, '/activity')
    await page.getByText('Live: new records appear here').waitFor()
    const answer = call('rec:live', { text: 'hello' }, 'live-call')
    // forwarded at once, on the record while the upstream still works on it
    await waitFor('the upstream got the call', () => fx.calls().some((c) => c.name === 'live'))
    const [intent] = await waitFor('the call on the record', () => { const r = records('live-call'); return r.length ? r : undefined })
    expect(intent).toMatchObject({ type: 'tool.call', actor: 'token:upstream-tests', tier: 'agent', server: 'rec', data: { target: 'rec:live', arguments_hash: argumentsHash(canonicalJson({ text: 'hello' })) } })
    expect(intent.type === 'tool.call' && intent.data.outcome).toBeUndefined()
    expect((await cliList('live-call'))[0]).toMatchObject({ id: intent.id, call: { state: 'running' }, summary: 'rec:live: running' })
    const line = page.locator(`[data-testid="activity-record"][data-id="${intent.id}"]`)
    await line.waitFor()
    expect(await line.getAttribute('data-call')).toBe('running')
    await expect.poll(() => line.textContent()).toContain('rec:live: running')

    release('live')
    const { body } = await answer
    expect(body.result?.content[0].text).toBe('live: {"text":"hello"}')
    const outcome = await waitFor('the outcome on the record', () => records('live-call').find((r) => r.type === 'tool.call_outcome'))
    expect(outcome).toMatchObject({ actor: 'token:upstream-tests', server: 'rec', data: { call: intent.id, target: 'rec:live', outcome: 'ok' } })
    const listed = await cliList('live-call')
    expect(listed.map((r) => r.type)).toEqual(['tool.call_outcome', 'tool.call'])
    expect(listed[1]).toMatchObject({ call: { state: 'ended', end: { outcome: 'ok' } }, summary: expect.stringMatching(/^rec:live: ok in \d+ ms$/) })
    // the live page settles the same line when the outcome arrives
    await expect.poll(() => line.getAttribute('data-call'), { timeout: 20_000 }).toBe('ended')
    expect(await line.textContent()).toMatch(/rec:live: ok in \d+ ms/)
    await context.close()
  })

  it('concurrent calls under one request id: each outcome names its own call, never another', async () => {
    const n = 20
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => call(`rec:s${i % SLEEPS.length}`, { text: `n${i}` }, 'mixed')))
    answers.forEach((a, i) => expect(a.body.result?.content[0].text, JSON.stringify(a.body)).toBe(`s${i % SLEEPS.length}: {"text":"n${i}"}`))
    const all = await waitFor('every outcome', () => { const r = records('mixed'); return r.filter((x) => x.type === 'tool.call_outcome').length === n ? r : undefined })
    const intents = all.filter((r) => r.type === 'tool.call')
    const outcomes = all.filter((r) => r.type === 'tool.call_outcome')
    expect(intents).toHaveLength(n)
    // every call's arguments, each exactly once
    expect(intents.map((r) => r.type === 'tool.call' && `${r.data.target} ${r.data.arguments_hash}`).sort())
      .toEqual(Array.from({ length: n }, (_, i) => `rec:s${i % SLEEPS.length} ${argumentsHash(canonicalJson({ text: `n${i}` }))}`).sort())
    // each outcome completes exactly one call, of the same tool, after that tool's own sleep
    expect(new Set(outcomes.map((o) => o.type === 'tool.call_outcome' && o.data.call)).size).toBe(n)
    for (const o of outcomes) {
      if (o.type !== 'tool.call_outcome') continue
      const intent = intents.find((r) => r.id === o.data.call)!
      expect(intent.type === 'tool.call' && intent.data.target).toBe(o.data.target)
      expect(o.data.duration_ms).toBeGreaterThanOrEqual(SLEEPS[Number(o.data.target.slice('rec:s'.length))])
      expect(o.id).toBeGreaterThan(intent.id)
    }
  })

  it('a foreign write lock held past the write timeout: the agent gets -32603 and the upstream result is not answered', async () => {
    const before = fx.calls().filter((c) => c.name === 'ok').length
    db.$client.exec('BEGIN IMMEDIATE') // another process holds the write lock, and keeps it
    let answered: Awaited<ReturnType<typeof call>>
    try {
      answered = await call('rec:ok', { text: 'locked' }, 'under-lock')
    } finally {
      db.$client.exec('ROLLBACK')
    }
    expect(answered.body.result).toBeUndefined()
    expect(answered.body.error?.code).toBe(-32603)
    expect(answered.body.error?.message).toMatch(/the call's record could not be committed, so its result is withheld .*locked by another process/)
    expect(JSON.stringify(answered.body)).not.toContain('ok: {"text":"locked"}')
    // it was forwarded at once (the upstream ran it), and nothing of it is on the record
    expect(fx.calls().filter((c) => c.name === 'ok').length).toBe(before + 1)
    expect(records('under-lock')).toEqual([])
    // the lock gone (and the runtime's heartbeat, which it also held back, written again), calls are answered and recorded again
    await waitFor('the runtime ready again', () => evaluateNow(db, agentCaller(db, agent)!, { ids: ['rec:ok'] }).verdict === 'ready')
    expect((await call('rec:ok', { text: 'after' }, 'after-lock')).body.result?.content[0].text).toBe('ok: {"text":"after"}')
    expect(records('after-lock')[0]).toMatchObject({ type: 'tool.call' })
  })

  it('kill -9 between forwarding and outcome: the call reads "outcome unknown" in activity list and on the Activity page', async () => {
    const inflight = call('rec:crash', { text: 'doomed' }, 'crashed-call').catch(() => undefined) // the connection dies with the server
    const [intent] = await waitFor('the call on the record', () => { const r = records('crashed-call'); return r.length ? r : undefined })
    await server.crash()
    await inflight
    // no restart needed: once the dead runtime's lease has lapsed, the CLI tells it
    const listed = await waitFor('outcome unknown in activity list', async () => { const l = await cliList('crashed-call'); return l[0]?.call?.state === 'unknown' ? l : undefined })
    expect(listed).toEqual([expect.objectContaining({ id: intent.id, type: 'tool.call', summary: `rec:crash: ${OUTCOME_UNKNOWN}` })])
    const table = await runCli(['activity', 'list', '--request-id', 'crashed-call', '--db', file])
    expect(table.stdout).toContain(OUTCOME_UNKNOWN)

    server = await startServer(env())
    servers.push(server)
    const { context, page } = await signedIn({ db, file, server, browser, stop: async () => {} })
    await visit(page, '/activity?request_id=crashed-call')
    const line = page.locator(`[data-testid="activity-record"][data-id="${intent.id}"]`)
    await line.waitFor()
    expect(await line.getAttribute('data-call')).toBe('unknown')
    expect(await line.textContent()).toContain(`rec:crash: ${OUTCOME_UNKNOWN}`)
    await visit(page, '/activity/crashed-call')
    expect(await page.locator(`[data-testid="activity-record"][data-id="${intent.id}"]`).textContent()).toContain(OUTCOME_UNKNOWN)
    await context.close()
    expect(callsOf('rec:crash')).toHaveLength(1)
  })

  it('a server stopped right after it answered a call has recorded the call\'s outcome', async () => {
    await waitFor('rec ready again', () => connectionState(db, 'rec')?.state === 'ready' && (readLease(db)?.expiresAt ?? 0) > Date.now())
    const { body } = await call('rec:ok', { text: 'last words' }, 'then-stopped')
    expect(body.result?.content[0].text).toBe('ok: {"text":"last words"}')
    await server.stop()
    expect(records('then-stopped').map((r) => r.type)).toEqual(['tool.call', 'tool.call_outcome'])
  })
})
