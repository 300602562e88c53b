import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  demoState, EXTENSION_ID, expectValidResolveFacet, legacyClient, legacyRpc, modernClient, modernRpc, recordsFor, startHarness, type Harness,
} from './harness'

// billing, the demo's one server outside profile ops, is a state-file example (never ready);
// here it has a transport (never connected: the runtime is off) so its `ready` holds
const state = () => {
  const s = demoState()
  s.servers!.find((x) => x.name === 'billing')!.transport = { url: 'http://127.0.0.1:9/mcp' }
  return s
}
let h: Harness
beforeAll(async () => {
  h = await startHarness(state())
})
afterAll(async () => {
  await h?.server.stop()
})
beforeEach(() => h.reload(state()))

const resolveResult = z.object({
  tool: z.looseObject({ name: z.string(), inputSchema: z.record(z.string(), z.unknown()), _meta: z.record(z.string(), z.unknown()).optional() }),
})

describe('Shape B: tools/resolve', () => {
  // The codes that can hold for a served tool (docs/mcp.md "Which codes reach Shape B").
  const reachable: [string, string | undefined, string | undefined][] = [
    ['notes:read_note', undefined, undefined],
    ['search:web_search', 'server_initializing', undefined],
    ['slack:post_message', 'server_unhealthy', 'restart'],
    ['jira:create_ticket', 'oauth_required', 'login'],
  ]

  it.each(reachable)('%s resolves with the served tool and its verdict facet (no id)', async (name, reason, action) => {
    const r = await modernRpc(h.mcp, 'tools/resolve', { name, arguments: { id: 'n-1' } })
    const tool = r.body.result!.tool
    const listed = (await modernRpc(h.mcp, 'tools/list')).body.result!.tools.find((t: { name: string }) => t.name === name)
    const { _meta, ...definition } = tool
    expect(definition).toEqual(listed) // the resolved tool is the served one
    const facet = _meta[EXTENSION_ID]
    expectValidResolveFacet(facet)
    expect(facet.id).toBeUndefined()
    expect(facet.status).toBe(reason ? 'unavailable' : 'ready')
    expect(facet.reason).toBe(reason)
    expect(facet.action).toBe(action)
    expect(r.body.result!.resultType).toBe('complete')
    expect(recordsFor(h.db, r.headers.get('x-request-id')!)).toMatchObject([{ surface: 'mcp-shape-b', tier: 'agent', verdict: reason ? expect.any(String) : 'ready' }])
  })

  // Withheld, out-of-scope, unconfigured and absent tools are not served: -32602, nothing recorded.
  it.each([
    'notes:export_notes', 'notes:share_note', 'notes:purge_notes', 'notes:rebuild_index', 'github:list_issues',
    'legacy-ci:run_job', 'notes:nope', 'wiki:page', 'not-an-id', ' notes:read_note',
  ])('%s is an unknown tool: -32602', async (name) => {
    const r = await modernRpc(h.mcp, 'tools/resolve', { name, arguments: {} })
    expect(r.body.error!.code).toBe(-32602)
    expect(r.body.error!.message).toBe(`unknown tool "${name}": no such tool is served to this session`)
    expect(recordsFor(h.db, r.headers.get('x-request-id')!)).toEqual([])
  })

  it('scope applies: a tool outside the token scope or the path profile is unknown', async () => {
    const bot = await modernRpc(h.mcp, 'tools/resolve', { name: 'billing:get_invoice' }, { headers: { authorization: 'Bearer tg_at_demo_notes_bot_00' } })
    expect(bot.body.error!.code).toBe(-32602)
    const pinned = await modernRpc(`${h.mcp}/p/ops`, 'tools/resolve', { name: 'billing:get_invoice' })
    expect(pinned.body.error!.code).toBe(-32602)
    const anon = await modernRpc(h.mcp, 'tools/resolve', { name: 'billing:get_invoice' })
    expect(anon.body.result!.tool._meta[EXTENSION_ID]).toEqual({ status: 'ready' })
  })

  it('params are validated: a missing name is -32602', async () => {
    const r = await modernRpc(h.mcp, 'tools/resolve', { arguments: {} })
    expect(r.body.error!.code).toBe(-32602)
    expect(r.body.error!.message).toMatch(/name/)
  })

  it('describe_tool resolves to its definition without an availability facet (built-in, not upstream)', async () => {
    const r = await modernRpc(h.mcp, 'tools/resolve', { name: 'describe_tool', arguments: {} })
    expect(r.body.result!.tool.name).toBe('describe_tool')
    expect(r.body.result!.tool._meta).toBeUndefined()
  })

  it('works from both real clients and on the legacy era', async () => {
    const modern = await modernClient(h.mcp)
    const a = resolveResult.parse(await modern.request({ method: 'tools/resolve', params: { name: 'slack:post_message', arguments: {} } }, resolveResult))
    expectValidResolveFacet(a.tool._meta![EXTENSION_ID])
    expect(a.tool._meta![EXTENSION_ID]).toMatchObject({ status: 'unavailable', reason: 'server_unhealthy', retryable: true })
    await modern.close()
    const legacy = await legacyClient(h.mcp)
    const b = resolveResult.parse(await legacy.request({ method: 'tools/resolve', params: { name: 'notes:read_note', arguments: {} } }, resolveResult))
    expect(b.tool._meta![EXTENSION_ID]).toEqual({ status: 'ready' })
    await legacy.close()
    const raw = await legacyRpc(h.mcp, 'tools/resolve', { name: 'notes:nope' })
    expect(raw.body.error!.code).toBe(-32602)
  })
})
