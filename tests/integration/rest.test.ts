import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { activity, serverConnections, servers } from '@/db/schema'
import { taxonomy, type Reason } from '@/lib/preflight/taxonomy'
import { loadState } from '@/lib/state/load'
import { freshDb, demoStateFile } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'

const OPERATOR_KEY = 'tg_op_rest_test_key_0123456789'
const NIGHTLY = 'tg_at_demo_nightly_0000' // demo token: allowed ["*"], pinned to profile "ops"
// search is a state-file example in the demo (never ready: nothing behind it); the wait tests
// flip its state to ready, so here it has a transport (never connected: the runtime is off)
const demo = () => {
  const state = JSON.parse(readFileSync(demoStateFile(), 'utf8'))
  state.servers.find((s: { name: string }) => s.name === 'search').transport = { url: 'http://127.0.0.1:9/mcp' }
  return state
}

let db: Db
let server: RunningServer

beforeAll(async () => {
  const fresh = freshDb()
  db = fresh.db
  await loadState(db, demo(), 'test')
  server = await startServer({ TOOLGATE_DB: fresh.file, TOOLGATE_API_KEY: OPERATOR_KEY })
})
afterAll(async () => {
  await server?.stop()
})
beforeEach(async () => {
  await loadState(db, demo(), 'test')
})

interface Reply { status: number; headers: Headers; body: any } // eslint-disable-line @typescript-eslint/no-explicit-any
async function post(body: unknown, headers: Record<string, string> = { 'x-api-key': OPERATOR_KEY }): Promise<Reply> {
  const res = await fetch(`${server.url}/api/v1/preflight`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, headers: res.headers, body: await res.json() }
}
const asAgent = { authorization: `Bearer ${NIGHTLY}` }
const ids = (...xs: string[]) => ({ tools: xs.map((id) => ({ id })) })
const records = (requestId: string) => db.select().from(activity).where(eq(activity.requestId, requestId)).all()

// One request per code: which id (and options) induces it on the demo state.
const inducers: { reason: Reason; id: string; extra?: Record<string, unknown>; agent: boolean }[] = [
  { reason: 'server_initializing', id: 'search:web_search', agent: true },
  { reason: 'server_unhealthy', id: 'slack:post_message', agent: true },
  { reason: 'server_disabled', id: 'legacy-ci:run_job', agent: true },
  { reason: 'server_quarantined', id: 'github:list_issues', agent: true },
  { reason: 'tool_pending_approval', id: 'notes:export_notes', agent: true },
  { reason: 'tool_changed', id: 'notes:share_note', agent: true },
  { reason: 'tool_blocked_by_user', id: 'notes:purge_notes', agent: true },
  { reason: 'oauth_required', id: 'jira:create_ticket', agent: true },
  { reason: 'hash_mismatch', id: 'notes:read_note', extra: { pin_hash: 'sha256/v3:' + '0'.repeat(64) }, agent: true },
  { reason: 'server_not_in_scope', id: 'billing:get_invoice', extra: { profile: 'ops' }, agent: false },
  { reason: 'tool_denied_by_config', id: 'notes:rebuild_index', agent: true },
  { reason: 'missing_annotation', id: 'notes:tag_note', extra: { policy: { read_only_only: true } }, agent: true },
  { reason: 'policy_filtered', id: 'notes:write_note', extra: { policy: { read_only_only: true } }, agent: true },
  { reason: 'not_found', id: 'notes:no_such_tool', agent: true },
  { reason: 'server_not_configured', id: 'wiki:page', agent: false },
]
function requestFor(i: (typeof inducers)[number]) {
  const { pin_hash, ...rest } = i.extra ?? {}
  return { tools: [{ id: i.id, ...(pin_hash ? { pin_hash } : {}) }], ...rest }
}

describe('every reason code over REST', () => {
  it.each(inducers)('operator tier: $reason', async (i) => {
    const r = await post(requestFor(i))
    expect(r.status).toBe(200)
    const t = r.body.data.tools[0]
    const spec = taxonomy[i.reason]
    expect(t).toMatchObject({ id: i.id, status: 'unavailable', reason: i.reason, retryable: spec.retryable })
    if ('action' in spec) expect(t.action).toBe(i.reason === 'server_unhealthy' ? 'restart' : spec.action)
    else expect(t).not.toHaveProperty('action')
    expect(t.detail).toEqual(expect.any(String))
    expect(t.remediation).toEqual(expect.any(String))
    expect(r.body.data.verdict).toBe(spec.verdict)
  })

  it.each(inducers.filter((i) => i.agent))('agent-token tier: $reason', async (i) => {
    const r = await post(requestFor(i), asAgent)
    expect(r.body.data.tools[0]).toMatchObject({ id: i.id, reason: i.reason, retryable: taxonomy[i.reason].retryable })
    expect(r.body.data.verdict).toBe(taxonomy[i.reason].verdict)
  })

  it('agent-token tier: out-of-scope and unconfigured servers are byte-identical to an absent tool', async () => {
    // billing is outside the token's pinned profile; wiki is not configured; notes:nope does not exist
    const [outOfScope, unconfigured, absent] = await Promise.all(
      ['billing:zz', 'wiki:zz', 'notes:zzzzzzzz'].map(async (id) => (await post(ids(id), asAgent)).body.data.tools[0]),
    )
    const normalize = (t: { id: string }) => JSON.stringify(t).split(t.id).join('<id>')
    expect(outOfScope.reason).toBe('not_found')
    expect(normalize(outOfScope)).toBe(normalize(absent))
    expect(normalize(unconfigured)).toBe(normalize(absent))
    expect(JSON.stringify(await post(ids('billing:get_invoice', 'wiki:page'), asAgent))).not.toMatch(/not_in_scope|not_configured|sha256/)
  })

  it('operator ready results carry the pin; agent ready results never do', async () => {
    const op = await post(ids('notes:read_note'))
    expect(op.body.data.tools[0]).toEqual({ id: 'notes:read_note', status: 'ready', hash: expect.stringMatching(/^sha256\/v3:[0-9a-f]{64}$/) })
    const ag = await post(ids('notes:read_note'), asAgent)
    expect(ag.body.data.tools[0]).toEqual({ id: 'notes:read_note', status: 'ready' })
  })
})

describe('request handling', () => {
  it('answers 200 with the envelope, dedups in first-occurrence order and reports malformed ids per id', async () => {
    const r = await post(ids(' notes:read_note', 'bogus', 'notes:read_note ', 'notes:search_notes', ':x'))
    expect(r.status).toBe(200)
    expect(r.body.success).toBe(true)
    expect(r.body.data.tools.map((t: { id: string }) => t.id)).toEqual(['notes:read_note', 'bogus', 'notes:search_notes', ':x'])
    expect(r.body.data.tools[1]).toMatchObject({ reason: 'not_found', detail: expect.stringContaining('<server>:<tool>') })
    expect(r.body.data.verdict).toBe('unknown_ids')
    expect(r.body.data.checked_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(r.body.data).not.toHaveProperty('waited_ms')
  })

  it('accepts 100 raw entries and rejects 101', async () => {
    const hundred = Array.from({ length: 100 }, () => ({ id: 'notes:read_note' }))
    const ok = await post({ tools: hundred })
    expect(ok.status).toBe(200)
    expect(ok.body.data.tools).toHaveLength(1)
    const tooMany = await post({ tools: [...hundred, { id: 'notes:read_note' }] })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.error).toContain('too many tools: 101 (max 100)')
  })

  it('reuses a well-formed X-Request-Id, mints one otherwise, and keys the activity record by it', async () => {
    const mine = await post(ids('notes:read_note'), { 'x-api-key': OPERATOR_KEY, 'x-request-id': 'nightly-job_42' })
    expect(mine.headers.get('x-request-id')).toBe('nightly-job_42')
    expect(mine.body.data.request_id).toBe('nightly-job_42')
    for (const bad of ['has spaces', 'x'.repeat(257), 'semi;colon']) {
      const r = await post(ids('notes:read_note'), { 'x-api-key': OPERATOR_KEY, 'x-request-id': bad })
      expect(r.body.data.request_id).toMatch(/^req_[0-9A-Z]{26}$/)
      expect(r.headers.get('x-request-id')).toBe(r.body.data.request_id)
    }
  })

  it("a client's X-Request-Id never joins another caller's request: the agent gets a fresh id, and the operator's story stays its own", async () => {
    const ops = await post(ids('notes:read_note'), { 'x-api-key': OPERATOR_KEY, 'x-request-id': 'ops-change-7' })
    expect(ops.body.data.request_id).toBe('ops-change-7')
    const agent = await post(ids('notes:read_note'), { ...asAgent, 'x-request-id': 'ops-change-7' })
    expect(agent.status).toBe(200)
    expect(agent.body.data.request_id).toMatch(/^req_[0-9A-Z]{26}$/)
    expect(agent.headers.get('x-request-id')).toBe(agent.body.data.request_id)
    // the same over MCP, where the facet carries the request id
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...asAgent, 'x-request-id': 'ops-change-7' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'app.mcpproxy/required-tools': { tools: [{ id: 'notes:read_note' }] } } } }),
    })
    const minted = mcp.headers.get('x-request-id')!
    expect(minted).toMatch(/^req_[0-9A-Z]{26}$/)
    expect((await mcp.json()).result._meta['app.mcpproxy/required-tools'].request_id).toBe(minted)
    expect(records('ops-change-7').map((r) => r.actor)).toEqual(['break-glass'])
    // a caller's own id is its own: reusing it joins its own story
    const first = await post(ids('notes:read_note'), { ...asAgent, 'x-request-id': 'nightly-run-9' })
    const again = await post(ids('notes:export_notes'), { ...asAgent, 'x-request-id': 'nightly-run-9' })
    expect([first.body.data.request_id, again.body.data.request_id]).toEqual(['nightly-run-9', 'nightly-run-9'])
    expect(records('nightly-run-9').map((r) => r.actor)).toEqual(['token:nightly', 'token:nightly'])
    // and the operator cannot be joined to the agent's either
    const operator = await post(ids('notes:read_note'), { 'x-api-key': OPERATOR_KEY, 'x-request-id': 'nightly-run-9' })
    expect(operator.body.data.request_id).not.toBe('nightly-run-9')
  })

  it('has written the activity record, with its fields, when the answer arrives', async () => {
    const r = await post({ tools: [{ id: 'notes:read_note' }, { id: 'notes:export_notes' }, { id: 'notes:read_note' }], profile: 'ops', policy: { exclude_destructive: true } }, asAgent)
    const [rec] = records(r.body.data.request_id)
    expect(rec).toMatchObject({ type: 'preflight', surface: 'rest', tier: 'agent', actor: 'token:nightly', verdict: 'blocked' })
    expect(rec.data).toMatchObject({
      ids_raw: 3, ids_unique: 2, profile: 'ops', policy: { exclude_destructive: true },
      tools: [{ id: 'notes:read_note', status: 'ready' }, { id: 'notes:export_notes', status: 'unavailable', reason: 'tool_pending_approval' }],
      duration_ms: expect.any(Number),
    })
  })
})

describe('errors', () => {
  const bad: [string, unknown, string][] = [
    ['invalid JSON', '{"tools": [', 'invalid JSON'],
    ['not one object (array)', '[{"tools": []}]', 'one JSON object'],
    ['not one object (two values)', '{"tools":[{"id":"a:b"}]} {}', 'invalid JSON'],
    ['unknown top-level field', { tools: [{ id: 'a:b' }], verbose: true }, 'Unrecognized key: "verbose"'],
    ['unknown entry field', { tools: [{ id: 'a:b', hash: 'x' }] }, 'tools[0]: Unrecognized key: "hash"'],
    ['unknown policy member', { tools: [{ id: 'a:b' }], policy: { read_only: true } }, 'policy: has unknown member "read_only"'],
    ['empty tools', { tools: [] }, 'tools: must not be empty'],
    ['missing tools', {}, 'tools'],
    ['non-string id', { tools: [{ id: 7 }] }, 'tools[0].id'],
    ['conflicting pins', { tools: [{ id: 'a:b', pin_hash: 'sha256/v1:aa' }, { id: 'a:b', pin_hash: 'sha256/v1:bb' }] }, 'conflicting pin_hash values for "a:b"'],
    ['pin vs no pin', { tools: [{ id: 'a:b' }, { id: ' a:b', pin_hash: 'sha256/v1:bb' }] }, 'conflicting pin_hash values for "a:b"'],
    ['negative wait_ms', { tools: [{ id: 'a:b' }], wait_ms: -1 }, 'wait_ms'],
    ['wait_ms over 10000', { tools: [{ id: 'a:b' }], wait_ms: 10001 }, 'wait_ms: must be ≤ 10000'],
    ['unknown profile', { tools: [{ id: 'a:b' }], profile: 'nope' }, 'unknown profile "nope"'],
  ]
  it.each(bad)('400 for %s, naming the fault, with no evaluation and no record', async (_name, body, fault) => {
    const before = db.select().from(activity).all().length
    const r = await post(body)
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ success: false, request_id: expect.any(String) })
    expect(r.body.error).toContain(fault)
    expect(r.body).not.toHaveProperty('data')
    expect(db.select().from(activity).all().length).toBe(before)
  })

  it('413 for a body over 1 MiB', async () => {
    const r = await post({ tools: [{ id: 'a:' + 'x'.repeat(1024 * 1024) }] })
    expect(r.status).toBe(413)
    expect(r.body.error).toContain('exceeds')
  })

  it.each([
    ['no credentials', {}, 'missing credentials'],
    ['a wrong operator key', { 'x-api-key': 'nope' }, 'invalid X-API-Key'],
    ['an unknown agent token', { authorization: 'Bearer tg_at_unknown' }, 'invalid agent token'],
    ['a malformed Authorization header', { authorization: 'Basic abc' }, 'Bearer'],
    ['another scheme: what Bearer takes, personal access tokens too', { authorization: 'Token abc' }, 'Authorization must be "Bearer <agent token or personal access token>"'],
    ['the operator key as a Bearer token', { authorization: `Bearer ${OPERATOR_KEY}` }, 'this is an operator key: send it as X-API-Key'],
  ])('401 with %s', async (_name, headers, fault) => {
    const r = await post(ids('notes:read_note'), headers as Record<string, string>)
    expect(r.status).toBe(401)
    expect(r.body.error).toContain(fault)
  })

  it('503 when the activity record cannot be written: no verdict without a record', async () => {
    db.$client.exec(`CREATE TRIGGER refuse_activity BEFORE INSERT ON activity BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`)
    try {
      const r = await post(ids('notes:read_note'), { 'x-api-key': OPERATOR_KEY, 'x-request-id': 'no-record-1' })
      expect(r.status).toBe(503)
      expect(r.body).toEqual({ success: false, error: expect.stringContaining('activity record not persisted'), request_id: 'no-record-1' })
    } finally {
      db.$client.exec('DROP TRIGGER refuse_activity')
    }
    expect(records('no-record-1')).toHaveLength(0)
  })

  it('503 when the proxy state cannot be read: an error, never a fabricated reason', async () => {
    db.$client.exec('ALTER TABLE tools RENAME TO tools_away')
    try {
      const r = await post(ids('notes:read_note'), { 'x-api-key': OPERATOR_KEY, 'x-request-id': 'unreadable-1' })
      expect(r.status).toBe(503)
      expect(r.body.error).toContain('proxy state could not be read')
      expect(JSON.stringify(r.body)).not.toContain('not_found')
    } finally {
      db.$client.exec('ALTER TABLE tools_away RENAME TO tools')
    }
    expect(records('unreadable-1')).toHaveLength(0)
    expect((await post(ids('notes:read_note'))).status).toBe(200)
  })
})

describe('wait_ms', () => {
  const setConnection = (name: string, state: 'ready' | 'connecting') =>
    db.update(serverConnections).set({ state }).where(eq(serverConnections.serverName, name)).run()

  it('is reported as waited_ms: 0 when the first verdict is not retryable', async () => {
    const r = await post({ ...ids('notes:read_note'), wait_ms: 5000 })
    expect(r.body.data).toMatchObject({ verdict: 'ready', waited_ms: 0 })
  })

  it('stops early when the tools become ready', async () => {
    setTimeout(() => setConnection('search', 'ready'), 400)
    const started = Date.now()
    const r = await post({ ...ids('search:web_search'), wait_ms: 8000 })
    expect(r.body.data.verdict).toBe('ready')
    expect(r.body.data.waited_ms).toBeGreaterThanOrEqual(250)
    expect(Date.now() - started).toBeLessThan(4000)
  })

  it('stops at once when a non-retryable failure appears', async () => {
    setTimeout(() => db.update(servers).set({ quarantined: true }).where(eq(servers.name, 'search')).run(), 400)
    const r = await post({ ...ids('search:web_search'), wait_ms: 8000 })
    expect(r.body.data.verdict).toBe('blocked')
    expect(r.body.data.tools[0].reason).toBe('server_quarantined')
    expect(r.body.data.waited_ms).toBeLessThan(4000)
  })

  it('answers with the current verdict at the deadline', async () => {
    const r = await post({ ...ids('search:web_search'), wait_ms: 700 })
    expect(r.body.data.verdict).toBe('degraded_retryable')
    expect(r.body.data.waited_ms).toBeGreaterThanOrEqual(700)
    expect(r.body.data.waited_ms).toBeLessThan(2000)
  })

  it('answers at once with waited_ms: 0 when the waiter pool is full', async () => {
    const waiters = Array.from({ length: 4 }, () => post({ ...ids('search:web_search'), wait_ms: 8000 }))
    // once the four hold the pool, a fifth waiter is answered at once; until then it would wait
    // its own 300 ms, so ask again until the pool is seen full (no fixed sleep to race)
    let fifth: Reply | undefined
    for (let i = 0; i < 20 && fifth?.body.data.waited_ms !== 0; i++) fifth = await post({ ...ids('search:web_search'), wait_ms: 300 })
    expect(fifth!.body.data).toMatchObject({ verdict: 'degraded_retryable', waited_ms: 0 })
    setConnection('search', 'ready')
    const done = await Promise.all(waiters)
    expect(done.map((d) => d.body.data.verdict)).toEqual(['ready', 'ready', 'ready', 'ready'])
  })
})

describe('GET /api/v1/whoami', () => {
  it('names the tier the credentials reach, and refuses without them', async () => {
    const op = await fetch(`${server.url}/api/v1/whoami`, { headers: { 'x-api-key': OPERATOR_KEY } })
    expect(await op.json()).toMatchObject({ success: true, data: { tier: 'operator' } })
    const ag = await fetch(`${server.url}/api/v1/whoami`, { headers: asAgent })
    expect(await ag.json()).toMatchObject({ success: true, data: { tier: 'agent', name: 'token:nightly' } })
    expect((await fetch(`${server.url}/api/v1/whoami`)).status).toBe(401)
  })
})
