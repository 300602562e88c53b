import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { activity } from '@/db/schema'
import { updateSettings } from '@/lib/admin/settings'
import { createAgentToken } from '@/lib/admin/tokens'
import { MAX_RECORDED_UNKNOWN_ID } from '@/lib/preflight/service'
import { freshDb, load } from '@/tests/helpers/db'
import { rpcBody } from '@/tests/helpers/rpc'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { waitFor } from '@/tests/upstream/harness'

// One agent token cannot fill the disk: names and ids are bounded before anything is recorded,
// a record keeps at most a prefix of an id no tool has, and per-token limits refuse a flood
// (REST 429 with Retry-After, MCP -32000 naming the limit) while other tokens carry on.

const KEY = 'tg_op_flood_test_key_00000000000'
let db: Db
let server: RunningServer
const tokens: Record<string, string> = {}

beforeAll(async () => {
  const fresh = freshDb()
  db = fresh.db
  // a transport that is never dialled (the runtime is off): its state comes from the file
  await load(db, { servers: [{ name: 'a', transport: { url: 'http://127.0.0.1:9/mcp' }, connection: { state: 'ready' }, tools: [{ name: 't', input_schema: {} }] }] })
  for (const name of ['flooder', 'bystander', 'hasty', 'patient']) {
    tokens[name] = (await createAgentToken(db, name, { allowedServers: ['*'], profilePin: null }, { actor: 'test' })).token
  }
  server = await startServer({ TOOLGATE_DB: fresh.file, TOOLGATE_API_KEY: KEY })
})
afterAll(async () => {
  await server?.stop()
})

const junk = (i: number) => `nosuch${i}:${'x'.repeat(240)}`.slice(0, 256)
const check = (token: string, ids: string[]) => fetch(`${server.url}/api/v1/preflight`, {
  method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[token]}` }, body: JSON.stringify({ tools: ids.map((id) => ({ id })) }),
})
const mcp = async (token: string, method: string, params: Record<string, unknown> = {}) => {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${tokens[token]}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await rpcBody(res) }
}
/** How much an actor has on the record: its records and their data's bytes. */
const onRecord = (actor: string) => db.select({ n: sql<number>`count(*)`, bytes: sql<number>`coalesce(sum(length(${activity.data})), 0)` })
  .from(activity).where(eq(activity.actor, actor)).get()!

describe('bounded before anything is recorded', () => {
  it('a tools/call name longer than a tool id may be is -32602 naming the bound, and nothing is recorded', async () => {
    const before = onRecord('token:patient')
    const r = await mcp('patient', 'tools/call', { name: `a:${'x'.repeat(1_000_000)}`, arguments: {} })
    expect(r.body.error?.code).toBe(-32602)
    expect(r.body.error?.message).toMatch(/name: tool id ".*" is 1000002 characters long \(max 256\)/)
    expect(r.body.error!.message.length).toBeLessThan(400)
    expect(onRecord('token:patient')).toEqual(before)
  })

  it('a check of 100 ids no tool has records at most a short prefix of each', async () => {
    const res = await check('patient', Array.from({ length: 100 }, (_, i) => junk(i)))
    expect(res.status).toBe(200)
    const requestId = (await res.json()).data.request_id
    const [row] = db.select().from(activity).where(eq(activity.requestId, requestId)).all()
    const data = row.data as { tools: { id: string; reason: string }[] }
    expect(data.tools).toHaveLength(100)
    for (const [i, t] of data.tools.entries()) expect(t).toEqual({ id: `${junk(i).slice(0, MAX_RECORDED_UNKNOWN_ID)}…`, status: 'unavailable', reason: 'not_found' })
    expect(JSON.stringify(row.data).length).toBeLessThan(100 * (MAX_RECORDED_UNKNOWN_ID + 60))
  })
})

describe('per-token limits', () => {
  it('a flood from one token stops at agent_recorded_mib_per_hour: 429 with Retry-After, MCP -32000, its records stop growing; other tokens are unaffected', async () => {
    await updateSettings(db, { agent_recorded_mib_per_hour: 1 }, { actor: 'test' })
    const ids = Array.from({ length: 100 }, (_, i) => junk(i))
    // each check records ~11 KiB: a MiB is a hundred or so of them, then the token is refused
    let refused: Response | undefined
    for (let i = 0; i < 400 && !refused; i++) {
      const res = await check('flooder', ids)
      if (res.status === 429) refused = res
      else expect(res.status).toBe(200)
    }
    expect(refused, 'the flood was never refused').toBeDefined()
    const seconds = Number(refused!.headers.get('retry-after'))
    expect(seconds).toBeGreaterThan(0)
    expect(seconds).toBeLessThanOrEqual(3660) // records leave the hour by the minute
    const body = await refused!.json()
    expect(body).toMatchObject({ success: false, error: expect.stringMatching(/^volume limit: token:flooder has had 1 MiB of activity recorded in the last hour, the most an agent may \(setting agent_recorded_mib_per_hour = 1\); retry in \d+ (s|min)$/) })
    const bounded = onRecord('token:flooder')
    expect(bounded.bytes).toBeLessThan(1.2 * 1024 * 1024)

    // more of the same changes nothing on the record
    for (let i = 0; i < 30; i++) expect((await check('flooder', ids)).status).toBe(429)
    const r = await mcp('flooder', 'tools/list')
    expect(r.status).toBe(429)
    expect(r.retryAfter).toMatch(/^\d+$/)
    expect(r.body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^volume limit: .*agent_recorded_mib_per_hour.*; retry in \d+ (s|min)$/) })
    expect(onRecord('token:flooder')).toEqual(bounded)

    // another token is not touched
    const other = await check('bystander', ['a:t'])
    expect(other.status).toBe(200)
    expect((await other.json()).data.verdict).toBe('ready')
    expect((await mcp('bystander', 'tools/list')).body.result).toBeDefined()
    await updateSettings(db, { agent_recorded_mib_per_hour: null }, { actor: 'test' })
    await waitFor('the lifted limit applies', async () => (await check('flooder', ['a:t'])).status === 200)
  })

  it('past agent_requests_per_second a token is refused with Retry-After: 1 (REST 429, MCP -32000); others are not', async () => {
    await updateSettings(db, { agent_requests_per_second: 3 }, { actor: 'test' })
    const burst = () => Promise.all(Array.from({ length: 12 }, () => check('hasty', ['a:t'])))
    const answers = await waitFor('a burst refused', async () => { const a = await burst(); return a.some((r) => r.status === 429) ? a : undefined })
    for (const res of answers) {
      if (res.status === 200) continue
      expect(res.status).toBe(429)
      expect(res.headers.get('retry-after')).toBe('1')
      expect((await res.json()).error).toBe('rate limit: token:hasty made more than 3 requests in a second, the most an agent may (setting agent_requests_per_second); retry in 1 s')
    }
    expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(6)
    const rpc = await waitFor('an MCP request refused', async () => { const r = await mcp('hasty', 'tools/list'); return r.status === 429 ? r : undefined })
    expect(rpc.retryAfter).toBe('1')
    expect(rpc.body.error).toEqual({ code: -32000, message: expect.stringMatching(/^rate limit: token:hasty .*agent_requests_per_second.*retry in 1 s$/) })
    expect((await check('patient', ['a:t'])).status).toBe(200)
    await updateSettings(db, { agent_requests_per_second: null }, { actor: 'test' })
  })
})
