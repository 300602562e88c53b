import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PAGE_SIZE } from '@/lib/catalog/listing'
import {
  activityCount, AGENT, demoState, EXTENSION_ID, expectValidFacet, LEGACY, legacyClient, legacyRpc, MODERN, modernClient, modernRpc,
  OPERATOR_KEY, rawArray, recordsFor, rider, startHarness, type Harness, type State,
} from './harness'

const NIGHTLY = 'tg_at_demo_nightly_0000' // allowed ["*"], pinned to profile "ops" (no billing)
const NOTES_BOT = 'tg_at_demo_notes_bot_00' // allowed ["notes"]

const SERVED_DEMO = [
  'describe_tool', 'billing:get_invoice', 'docs:lookup', 'jira:create_ticket', 'notes:delete_note', 'notes:read_note',
  'notes:search_notes', 'notes:tag_note', 'notes:write_note', 'search:web_search', 'slack:post_message',
]

let h: Harness
beforeAll(async () => {
  h = await startHarness(demoState())
})
afterAll(async () => {
  await h?.server.stop()
})
beforeEach(() => h.reload(demoState()))

const names = (tools: { name: string }[]) => tools.map((t) => t.name)

describe('advertisement', () => {
  it('server/discover lists the extension with {version: 1, max_tools: 50}, the Tasks extension, and tools.resolve (2026-07-28)', async () => {
    const r = await modernRpc(h.mcp, 'server/discover')
    expect(r.status).toBe(200)
    expect(r.body.result!.supportedVersions).toContain(MODERN)
    expect(r.body.result!.capabilities.extensions).toEqual({ [EXTENSION_ID]: { version: 1, max_tools: 50 }, 'io.modelcontextprotocol/tasks': {} })
    expect(r.body.result!.capabilities.tools.resolve).toBe(true)
    expect(r.body.result!.capabilities.experimental).toBeUndefined()
  })

  it('initialize answers capabilities.experimental with {version: 1} (2025-11-25)', async () => {
    const r = await legacyRpc(h.mcp, 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toMatch(/^application\/json/)
    expect(r.body.result!.protocolVersion).toBe(LEGACY)
    expect(r.body.result!.capabilities.experimental).toEqual({ [EXTENSION_ID]: { version: 1 } })
    expect(r.body.result!.capabilities.tools.resolve).toBe(true)
    expect(r.body.result!.capabilities.extensions).toBeUndefined()
  })

  it('the 2.x client negotiates 2026-07-28 and sees the extension; the 1.x client sees the legacy convention', async () => {
    const modern = await modernClient(h.mcp)
    expect(modern.getProtocolEra()).toBe('modern')
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN)
    expect(modern.getServerCapabilities()?.extensions?.[EXTENSION_ID]).toEqual({ version: 1, max_tools: 50 })
    await modern.close()
    const legacy = await legacyClient(h.mcp)
    expect(legacy.getServerCapabilities()?.experimental?.[EXTENSION_ID]).toEqual({ version: 1 })
    await legacy.close()
  })
})

describe('the served listing', () => {
  it('lists callable tools in scope as server:tool, plus describe_tool; withheld tools are not listed', async () => {
    const r = await modernRpc(h.mcp, 'tools/list')
    expect(names(r.body.result!.tools)).toEqual(SERVED_DEMO)
    const read = r.body.result!.tools.find((t: { name: string }) => t.name === 'notes:read_note')
    expect(read).toEqual({
      name: 'notes:read_note', description: 'Read one note by id.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
    })
    expect(r.body.result!.nextCursor).toBeUndefined()
    expect(r.body.result!.resultType).toBe('complete')
  })

  it('carries outputSchema when the tool declares one', async () => {
    const s = demoState()
    s.servers![0].tools!.push({ name: 'stats', input_schema: { type: 'object' }, output_schema: { type: 'object', properties: { n: { type: 'number' } } } })
    await h.reload(s)
    const r = await modernRpc(h.mcp, 'tools/list')
    expect(r.body.result!.tools.find((t: { name: string }) => t.name === 'notes:stats'))
      .toEqual({ name: 'notes:stats', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } } } })
  })

  it('scope narrows the listing: token ∩ token profile pin ∩ path profile', async () => {
    const bot = await modernRpc(h.mcp, 'tools/list', {}, { headers: { authorization: `Bearer ${NOTES_BOT}` } })
    expect(names(bot.body.result!.tools)).toEqual(SERVED_DEMO.filter((n) => n === 'describe_tool' || n.startsWith('notes:')))
    const nightly = await modernRpc(h.mcp, 'tools/list', {}, { headers: { authorization: `Bearer ${NIGHTLY}` } })
    expect(names(nightly.body.result!.tools)).toEqual(SERVED_DEMO.filter((n) => n !== 'billing:get_invoice'))
    const pinned = await modernRpc(`${h.mcp}/p/ops`, 'tools/list')
    expect(names(pinned.body.result!.tools)).toEqual(SERVED_DEMO.filter((n) => n !== 'billing:get_invoice'))
  })

  it('an unknown path profile is a clear 404, on both eras', async () => {
    const modern = await modernRpc(`${h.mcp}/p/nope`, 'tools/list')
    expect(modern.status).toBe(404)
    expect(modern.body.error!.message).toBe('no profile "nope" is available to this caller: /mcp/p/<profile> must name a profile that reaches a server in its scope')
    const legacy = await legacyRpc(`${h.mcp}/p/nope`, 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } })
    expect(legacy.status).toBe(404)
  })

  it('tells no agent which profiles exist: an unknown profile is answered byte for byte as one the caller may not use', async () => {
    const s = demoState()
    await h.reload({ ...s, profiles: [...s.profiles!, { name: 'finance', servers: ['billing'] }] })
    // nightly is pinned to "ops", which has no billing: "finance" narrows it to nothing
    const asNightly = { headers: { authorization: `Bearer ${NIGHTLY}` } }
    const comparable = (r: Awaited<ReturnType<typeof modernRpc>>) => {
      const headers = Object.fromEntries([...r.headers].filter(([k]) => !['x-request-id', 'date'].includes(k)))
      return { status: r.status, headers, text: r.text }
    }
    const existing = await modernRpc(`${h.mcp}/p/finance`, 'tools/list', {}, asNightly)
    const unknown = await modernRpc(`${h.mcp}/p/financf`, 'tools/list', {}, asNightly)
    expect(existing.status).toBe(404)
    expect(comparable(unknown)).toEqual({ ...comparable(existing), text: existing.text.replaceAll('finance', 'financf') })
    const init = { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
    const legacyExisting = await legacyRpc(`${h.mcp}/p/finance`, 'initialize', init, asNightly.headers)
    const legacyUnknown = await legacyRpc(`${h.mcp}/p/financf`, 'initialize', init, asNightly.headers)
    expect(comparable(legacyUnknown)).toEqual({ ...comparable(legacyExisting), text: legacyExisting.text.replaceAll('finance', 'financf') })
    // the same token may use a profile that reaches a server in its scope
    expect((await modernRpc(`${h.mcp}/p/ops`, 'tools/list', {}, asNightly)).status).toBe(200)
  })

  it('an invalid token is a 401; no credentials is a 401 with a Bearer challenge; an operator key elevates nothing', async () => {
    const bad = await modernRpc(h.mcp, 'tools/list', {}, { headers: { authorization: 'Bearer tg_at_wrong_000000' } })
    expect(bad.status).toBe(401)
    expect(bad.body.error!.message).toBe('invalid agent token')
    const garbled = await legacyRpc(h.mcp, 'tools/list', {}, { authorization: 'Basic abc' })
    expect(garbled.status).toBe(401)

    const before = activityCount(h.db)
    const anon = await modernRpc(h.mcp, 'tools/list', rider(['billing:get_invoice', 'wiki:page']), { headers: { authorization: null } })
    expect(anon.status).toBe(401)
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer /)
    expect(anon.body.error!.message).toBe('missing credentials: /mcp needs Authorization: Bearer <agent token>')
    expect(activityCount(h.db)).toBe(before) // nothing was evaluated

    const agent = await modernRpc(h.mcp, 'tools/list', rider(['billing:get_invoice', 'wiki:page']))
    const rid = agent.body.result!._meta[EXTENSION_ID].request_id
    expect(recordsFor(h.db, rid)).toMatchObject([{ tier: 'agent', actor: 'token:demo-agent', surface: 'mcp-shape-a' }])

    // An operator key is ignored on /mcp: alone it is no credential; beside a token, still the agent tier (no server_not_configured, no hash).
    const op = await modernRpc(h.mcp, 'tools/list', rider(['wiki:page', 'notes:read_note']), { headers: { 'x-api-key': OPERATOR_KEY, authorization: null } })
    expect(op.status).toBe(401)
    const both = await modernRpc(h.mcp, 'tools/list', rider(['wiki:page', 'notes:read_note']), { headers: { 'x-api-key': OPERATOR_KEY } })
    expect(both.body.result!._meta[EXTENSION_ID].tools).toEqual([
      expect.objectContaining({ id: 'wiki:page', reason: 'not_found' }),
      { id: 'notes:read_note', status: 'ready' },
    ])
    expect(both.text).not.toMatch(/sha256\//)
  })

  it('a body that is not JSON is a parse error; an oversized one is refused before parsing', async () => {
    const post = (body: string) => fetch(h.mcp, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${AGENT}` }, body })
    const bad = await post('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"')
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.code).toBe(-32700)
    const big = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1024 * 1024) } }))
    expect(big.status).toBe(413)
    const wrongType = await fetch(h.mcp, { method: 'POST', headers: { 'content-type': 'text/plain', authorization: `Bearer ${AGENT}` }, body: '{}' })
    expect(wrongType.status).toBe(415)
  })

  it('a GET is a 2025-11-25 event stream only: without Accept: text/event-stream, or on 2026-07-28, it is refused (405); other methods too', async () => {
    const auth = { authorization: `Bearer ${AGENT}` }
    const plain = await fetch(h.mcp, { method: 'GET', headers: auth })
    expect(plain.status).toBe(405)
    expect(plain.headers.get('allow')).toBe('GET, POST')
    expect((await plain.json()).error.message).toMatch(/Accept: text\/event-stream/)
    const modern = await fetch(h.mcp, { method: 'GET', headers: { ...auth, accept: 'text/event-stream', 'mcp-protocol-version': MODERN } })
    expect(modern.status).toBe(405)
    expect((await modern.json()).error.message).toMatch(/subscriptions\/listen/)
    for (const method of ['PUT', 'DELETE']) expect((await fetch(h.mcp, { method, headers: { ...auth, accept: 'text/event-stream' } })).status).toBe(405)
  })

  it('the GET stream authenticates as POST does: no token or a bad one is the same 401, a path profile of no use the same 404', async () => {
    const sse = { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY }
    for (const headers of [sse, { ...sse, authorization: 'Bearer tg_at_not_a_token_000' }]) {
      const get = await fetch(h.mcp, { method: 'GET', headers })
      const post = await fetch(h.mcp, { method: 'POST', headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
      expect(get.status).toBe(401)
      expect(get.headers.get('www-authenticate')).toBe(post.headers.get('www-authenticate'))
      expect(await get.json()).toEqual(await post.json())
    }
    const nowhere = await fetch(`${h.mcp}/p/nowhere`, { method: 'GET', headers: { ...sse, authorization: `Bearer ${AGENT}` } })
    expect(nowhere.status).toBe(404)
  })

  it('an authenticated GET (2025-11-25, or no version header: 2025-era) opens an event stream, ended when the client leaves', async () => {
    for (const version of [{ 'mcp-protocol-version': LEGACY }, {}] as Record<string, string>[]) {
      const left = new AbortController()
      const res = await fetch(`${h.mcp}/p/ops`, { method: 'GET', headers: { ...version, accept: 'text/event-stream', authorization: `Bearer ${AGENT}` }, signal: left.signal })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
      expect(res.headers.get('mcp-session-id')).toBeNull()
      left.abort()
      await res.body!.cancel().catch(() => undefined)
    }
  })
})

describe('pagination', () => {
  // 3 servers × 90 tools; every 7th pending (withheld): 270 - 39 = 231 served.
  const big = (): State => ({
    servers: ['s1', 's2', 's3'].map((name) => ({
      // a transport, never connected (the runtime is off), so `ready` can be true
      name, transport: { url: 'http://127.0.0.1:9/mcp' }, connection: { state: 'ready' as const },
      tools: Array.from({ length: 90 }, (_, i) => ({
        name: `t${String(i).padStart(3, '0')}`, input_schema: { type: 'object' },
        ...(i % 7 === 0 ? { approval: { status: 'pending' as const, disabled: false } } : {}),
      })),
    })),
  })
  const served = ['s1', 's2', 's3'].flatMap((s) => Array.from({ length: 90 }, (_, i) => i).filter((i) => i % 7 !== 0).map((i) => `${s}:t${String(i).padStart(3, '0')}`))

  it(`pages of ${PAGE_SIZE} with nextCursor cover every served tool once, in order`, async () => {
    await h.reload(big())
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const r = await modernRpc(h.mcp, 'tools/list', cursor ? { cursor } : {})
      const page = names(r.body.result!.tools)
      expect(page.length).toBeLessThanOrEqual(PAGE_SIZE + (pages === 0 ? 1 : 0))
      seen.push(...page)
      cursor = r.body.result!.nextCursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toEqual(['describe_tool', ...served])
  })

  it('the 2.x client walks every page; a rider on a later page leaves that page untouched', async () => {
    await h.reload(big())
    const client = await modernClient(h.mcp)
    expect(names((await client.listTools()).tools)).toEqual(['describe_tool', ...served])
    await client.close()
    const first = await modernRpc(h.mcp, 'tools/list')
    const cursor = first.body.result!.nextCursor
    const plain = await modernRpc(h.mcp, 'tools/list', { cursor })
    const ridden = await modernRpc(h.mcp, 'tools/list', { cursor, ...rider(['s1:t001', 's2:t007']) })
    expect(JSON.stringify(ridden.body.result!.tools)).toBe(JSON.stringify(plain.body.result!.tools))
    expect(ridden.body.result!.nextCursor).toBe(plain.body.result!.nextCursor)
    expect(ridden.body.result!._meta[EXTENSION_ID].tools.map((t: { reason?: string }) => t.reason ?? 'ready')).toEqual(['ready', 'tool_pending_approval'])
  })

  it('an invalid cursor is -32602', async () => {
    const r = await modernRpc(h.mcp, 'tools/list', { cursor: 'not-a-cursor' })
    expect(r.body.error!.code).toBe(-32602)
    expect(r.body.error!.message).toMatch(/invalid cursor "not-a-cursor"/)
  })
})

describe('Shape A over real clients', () => {
  it('2.x client on 2026-07-28: two different riders back to back give two different facets', async () => {
    const client = await modernClient(h.mcp)
    const a = await client.listTools(rider(['notes:read_note']))
    const b = await client.listTools(rider(['notes:export_notes', 'slack:post_message']))
    const fa = a._meta![EXTENSION_ID] as { verdict: string; tools: { id: string }[]; request_id: string }
    const fb = b._meta![EXTENSION_ID] as { verdict: string; tools: { id: string }[]; request_id: string }
    expectValidFacet(fa)
    expectValidFacet(fb)
    expect(fa.verdict).toBe('ready')
    expect(fa.tools).toEqual([{ id: 'notes:read_note', status: 'ready' }])
    expect(fb.verdict).toBe('blocked')
    expect(fb.tools.map((t) => t.id)).toEqual(['notes:export_notes', 'slack:post_message'])
    expect(fa.request_id).not.toBe(fb.request_id)
    expect(names(a.tools)).toEqual(SERVED_DEMO)
    expect(names(b.tools)).toEqual(SERVED_DEMO)
    await client.close()
  })

  it('1.x client on 2025-11-25: the rider itself is the signal; two riders, two facets', async () => {
    const client = await legacyClient(h.mcp)
    const a = await client.listTools(rider(['jira:create_ticket']))
    const b = await client.listTools(rider(['search:web_search', 'nope:x']))
    const fa = a._meta![EXTENSION_ID] as { verdict: string; tools: { reason?: string }[] }
    const fb = b._meta![EXTENSION_ID] as { verdict: string; tools: { reason?: string }[] }
    expectValidFacet(fa)
    expectValidFacet(fb)
    expect(fa.verdict).toBe('blocked')
    expect(fa.tools[0].reason).toBe('oauth_required')
    expect(fb.verdict).toBe('unknown_ids')
    expect(fb.tools.map((t) => t.reason)).toEqual(['server_initializing', 'not_found'])
    expect(names(a.tools)).toEqual(SERVED_DEMO)
    await client.close()
  })

  it('a 2.x client that did not declare the extension gets a plain listing, and nothing is recorded', async () => {
    const client = await modernClient(h.mcp, { declare: false })
    const before = activityCount(h.db)
    const r = await client.listTools(rider(['notes:read_note']))
    expect(r._meta?.[EXTENSION_ID]).toBeUndefined()
    expect(names(r.tools)).toEqual(SERVED_DEMO)
    expect(activityCount(h.db)).toBe(before)
    await client.close()
  })

  it('rider results carry ttlMs: 0 on 2026-07-28 and no resultType/ttlMs on 2025-11-25', async () => {
    const modern = await modernRpc(h.mcp, 'tools/list', rider(['notes:read_note']))
    expect(modern.body.result!.ttlMs).toBe(0)
    expect(modern.body.result!.resultType).toBe('complete')
    const legacy = await legacyRpc(h.mcp, 'tools/list', rider(['notes:read_note']))
    expect(legacy.body.result!.ttlMs).toBeUndefined()
    expect(legacy.body.result!.resultType).toBeUndefined()
    expect(legacy.body.result!._meta[EXTENSION_ID].verdict).toBe('ready')
  })

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: the listing with a rider equals the listing without, byte for byte apart from _meta`, async () => {
      const call = era === 'modern' ? (p: Record<string, unknown>) => modernRpc(h.mcp, 'tools/list', p) : (p: Record<string, unknown>) => legacyRpc(h.mcp, 'tools/list', p)
      const plain = await call({})
      const ridden = await call(rider(['notes:read_note', 'notes:export_notes', 'ghost:x'], { policy: { read_only_only: true } }))
      expect(plain.body.result!._meta?.[EXTENSION_ID]).toBeUndefined()
      expect(ridden.body.result!._meta[EXTENSION_ID].verdict).toBe('unknown_ids')
      // The carrier's tools array as it appears on the wire, byte for byte.
      expect(ridden.text.indexOf('"tools":[')).toBeLessThan(ridden.text.indexOf(EXTENSION_ID))
      expect(rawArray(ridden.text, 'tools')).toBe(rawArray(plain.text, 'tools'))
      expect(JSON.stringify(ridden.body.result!.tools)).toBe(JSON.stringify(plain.body.result!.tools))
      const rest = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== '_meta').sort())
      expect(rest(ridden.body.result!)).toEqual(rest(plain.body.result!))
    })
  }

  it('writes one mcp-shape-a record per rider, under the facet request_id (X-Request-Id reused when sent)', async () => {
    const r = await modernRpc(h.mcp, 'tools/list', rider(['notes:read_note', ' notes:read_note ', 'notes:export_notes'], { policy: { exclude_destructive: true } }),
      { headers: { 'x-request-id': 'job-42_preflight' } })
    const facet = r.body.result!._meta[EXTENSION_ID]
    expect(facet.request_id).toBe('job-42_preflight')
    expect(r.headers.get('x-request-id')).toBe('job-42_preflight')
    expect(facet.tools.map((t: { id: string }) => t.id)).toEqual(['notes:read_note', 'notes:export_notes'])
    const records = recordsFor(h.db, 'job-42_preflight')
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ type: 'preflight', surface: 'mcp-shape-a', tier: 'agent', verdict: 'blocked' })
    expect(records[0].data).toMatchObject({ ids_raw: 3, ids_unique: 2, policy: { exclude_destructive: true } })
  })

  it('the path profile is recorded and narrows the rider like the listing', async () => {
    const r = await modernRpc(`${h.mcp}/p/ops`, 'tools/list', rider(['billing:get_invoice', 'notes:read_note']))
    const facet = r.body.result!._meta[EXTENSION_ID]
    expect(facet.tools.map((t: { reason?: string }) => t.reason ?? 'ready')).toEqual(['not_found', 'ready'])
    expect(recordsFor(h.db, facet.request_id)[0].data).toMatchObject({ profile: 'ops' })
  })
})
