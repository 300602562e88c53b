import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { activityCount, demoState, EXTENSION_ID, legacyClient, legacyRpc, modernClient, modernRpc, recordsFor, startHarness, type Harness } from './harness'

let h: Harness
beforeAll(async () => {
  h = await startHarness(demoState())
})
afterAll(async () => {
  await h?.server.stop()
})

const call = (args: unknown, headers: Record<string, string> = {}) =>
  modernRpc(h.mcp, 'tools/call', { name: 'describe_tool', arguments: args }, { headers })
const textOf = (r: { body: { result?: Record<string, any> } }) => r.body.result!.content[0].text as string // eslint-disable-line @typescript-eslint/no-explicit-any
const n = (k: number) => Array.from({ length: k }, (_, i) => `notes:t${i}`)

describe('describe_tool, plain mode', () => {
  it('answers the reference envelope: {definitions, errors:[{id, error, remediation}]} with the gate as a code', async () => {
    const before = activityCount(h.db)
    const r = await call({ tool_ids: ['notes:read_note', 'notes:export_notes', 'notes:share_note', 'github:list_issues', 'notes:read_note '] })
    expect(r.body.result!.isError).toBeUndefined()
    const body = JSON.parse(textOf(r))
    expect(r.body.result!.structuredContent).toEqual(body)
    expect(body.definitions).toEqual([
      { name: 'notes:read_note', description: 'Read one note by id.', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, annotations: { readOnlyHint: true, openWorldHint: false } },
    ])
    expect(body.errors).toEqual([
      { id: 'notes:export_notes', error: 'pending_approval', remediation: 'Review and approve: toolgate tools approve notes:export_notes' },
      { id: 'notes:share_note', error: 'changed', remediation: expect.stringContaining('toolgate tools approve notes:share_note') },
      { id: 'github:list_issues', error: 'quarantined', remediation: expect.stringContaining('github') },
    ])
    expect(activityCount(h.db)).toBe(before) // no verdict computed, nothing recorded
  })

  it('disabled covers a disabled server, a user block and a config denial; out of scope, unconfigured, absent and malformed are not_found', async () => {
    const r = await call({ tool_ids: ['legacy-ci:run_job', 'notes:purge_notes', 'notes:rebuild_index', 'wiki:page', 'notes:nope'] })
    const body = JSON.parse(textOf(r))
    expect(body.definitions).toEqual([])
    expect(body.errors.map((e: { error: string }) => e.error)).toEqual(['disabled', 'disabled', 'disabled', 'not_found', 'not_found'])
    expect(body.errors[3]).toEqual({ id: 'wiki:page', error: 'not_found', remediation: 'Tool not found or no longer available; list tools again.' })
    const bot = await modernRpc(h.mcp, 'tools/call', { name: 'describe_tool', arguments: { tool_ids: ['billing:get_invoice', 'no-colon'] } }, { headers: { authorization: 'Bearer tg_at_demo_notes_bot_00' } })
    expect(JSON.parse(textOf(bot)).errors).toEqual([
      { id: 'billing:get_invoice', error: 'not_found', remediation: 'Tool not found or no longer available; list tools again.' },
      { id: 'no-colon', error: 'not_found', remediation: "Tool ids must be '<server>:<tool>', exactly as listed." },
    ])
  })

  it('at most 5 ids', async () => {
    const r = await call({ tool_ids: n(6) })
    expect(r.body.result!.isError).toBe(true)
    expect(textOf(r)).toContain('too many tool_ids: 6 (max 5 without check:true)')
  })
})

describe('describe_tool, check mode', () => {
  it('answers {verdict, checked_at, request_id, results} with verdicts only; request_id is the mcp-check record', async () => {
    const r = await call({ tool_ids: ['notes:read_note', 'notes:tag_note', 'notes:share_note', 'notes:read_not'], check: true, filters: { read_only_only: true } })
    const body = JSON.parse(textOf(r))
    expect(Object.keys(body)).toEqual(['verdict', 'checked_at', 'request_id', 'results'])
    expect(body.verdict).toBe('unknown_ids')
    expect(body.results.map((t: { reason?: string }) => t.reason ?? 'ready')).toEqual(['ready', 'missing_annotation', 'tool_changed', 'not_found'])
    expect(body.results[3].did_you_mean).toEqual(['notes:read_note'])
    expect(JSON.stringify(body)).not.toMatch(/inputSchema|sha256|"hash"/)
    const records = recordsFor(h.db, body.request_id)
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ surface: 'mcp-check', tier: 'agent', verdict: 'unknown_ids' })
    expect(records[0].data).toMatchObject({ ids_raw: 4, ids_unique: 4, policy: { read_only_only: true } })
    expect(r.headers.get('x-request-id')).toBe(body.request_id)
  })

  it('50 raw ids is accepted', async () => {
    const body = JSON.parse(textOf(await call({ tool_ids: n(50), check: true })))
    expect(body.results).toHaveLength(50)
  })

  // Each malformed call: a tool error naming the fault, no verdict, no record.
  const faults: [string, unknown, string][] = [
    ['51 raw ids', { tool_ids: n(51), check: true }, 'too many tool_ids: 51 (max 50 with check:true)'],
    ['51 duplicates still count raw', { tool_ids: Array.from({ length: 51 }, () => 'notes:read_note'), check: true }, 'too many tool_ids: 51 (max 50 with check:true)'],
    ['filters without check', { tool_ids: ['notes:read_note'], filters: { read_only_only: true } }, 'filters requires check: true'],
    ['filters with check: false', { tool_ids: ['notes:read_note'], check: false, filters: {} }, 'filters requires check: true'],
    ['check not a boolean', { tool_ids: ['notes:read_note'], check: 'true' }, 'check must be a boolean'],
    ['unknown member of filters', { tool_ids: ['notes:read_note'], check: true, filters: { no_network: true } }, 'filters has unknown member "no_network"'],
    ['non-boolean member of filters', { tool_ids: ['notes:read_note'], check: true, filters: { exclude_destructive: 1 } }, 'filters.exclude_destructive must be a boolean'],
    ['filters not an object', { tool_ids: ['notes:read_note'], check: true, filters: 'read_only_only' }, 'filters must be an object'],
    ['missing tool_ids', { check: true }, 'tool_ids is required'],
    ['no arguments at all', undefined, 'tool_ids is required'],
    ['tool_ids not an array', { tool_ids: 'notes:read_note', check: true }, 'tool_ids must be an array of strings'],
    ['a non-string id', { tool_ids: ['notes:read_note', 3], check: true }, 'tool_ids[1] must be a string'],
    ['empty tool_ids', { tool_ids: [], check: true }, 'tool_ids must not be empty'],
    ['expect_hashes (object)', { tool_ids: ['notes:read_note'], check: true, expect_hashes: { 'notes:read_note': 'sha256/v1:00' } }, 'expect_hashes is reserved'],
    ['expect_hashes (null)', { tool_ids: ['notes:read_note'], check: true, expect_hashes: null }, 'expect_hashes is reserved'],
    ['expect_hashes (plain mode)', { tool_ids: ['notes:read_note'], expect_hashes: [] }, 'expect_hashes is reserved'],
    ['an unknown argument', { tool_ids: ['notes:read_note'], check: true, profile: 'ops' }, 'unknown argument "profile"'],
  ]
  it.each(faults)('%s → isError naming the fault, nothing evaluated', async (_name, args, fault) => {
    const before = activityCount(h.db)
    const r = await call(args)
    expect(r.body.error).toBeUndefined()
    expect(r.body.result!.isError).toBe(true)
    expect(textOf(r)).toContain(fault)
    expect(textOf(r)).toContain('no verdict was computed')
    expect(activityCount(h.db)).toBe(before)
  })

  it('is reachable from both real clients', async () => {
    const modern = await modernClient(h.mcp)
    const a = await modern.callTool({ name: 'describe_tool', arguments: { tool_ids: ['jira:create_ticket'], check: true } })
    expect(JSON.parse((a.content[0] as { text: string }).text).results[0].reason).toBe('oauth_required')
    await modern.close()
    const legacy = await legacyClient(h.mcp)
    const b = await legacy.callTool({ name: 'describe_tool', arguments: { tool_ids: ['search:web_search'], check: true } })
    expect(JSON.parse((b.content as { text: string }[])[0].text).verdict).toBe('degraded_retryable')
    await legacy.close()
  })
})

describe('other tools/call: gated dispatch, refused with the preflight verdict', () => {
  const facetOf = (r: { body: { result?: Record<string, any> } }) => r.body.result!._meta[EXTENSION_ID] // eslint-disable-line @typescript-eslint/no-explicit-any

  it('a name the session cannot know is -32602 "Unknown tool" (contract §13), and nothing is called', async () => {
    for (const name of ['wiki:page', 'notes:nope', 'no-colon']) {
      const r = await modernRpc(h.mcp, 'tools/call', { name, arguments: {} })
      expect(r.body.error, name).toMatchObject({ code: -32602, message: `Unknown tool: "${name}"` })
    }
    // out of the token's scope reads exactly the same
    const bot = await modernRpc(h.mcp, 'tools/call', { name: 'billing:get_invoice', arguments: {} }, { headers: { authorization: 'Bearer tg_at_demo_notes_bot_00' } })
    expect(bot.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: "billing:get_invoice"' })
  })

  it('a misspelt name is told the tools it may have meant, from the caller\'s own scope only (as preflight\'s did_you_mean)', async () => {
    const typo = await modernRpc(h.mcp, 'tools/call', { name: 'notes:reed_note', arguments: {} })
    expect(typo.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: "notes:reed_note" (did you mean "notes:read_note"?)', data: { did_you_mean: ['notes:read_note'] } })
    const check = JSON.parse(textOf(await call({ tool_ids: ['notes:reed_note'], check: true }))).results[0]
    expect((typo.body.error as { data?: { did_you_mean?: string[] } }).data?.did_you_mean).toEqual(check.did_you_mean)
    // a 2025-11-25 call asking to run as a task is refused the same way, data and all
    const asTask = await legacyRpc(h.mcp, 'tools/call', { name: 'notes:reed_note', arguments: {}, task: {} })
    expect(asTask.body.error).toEqual(typo.body.error)
    // a token scoped to notes is not told of billing's tools, however close the name
    const bot = await modernRpc(h.mcp, 'tools/call', { name: 'billing:get_invoce', arguments: {} }, { headers: { authorization: 'Bearer tg_at_demo_notes_bot_00' } })
    expect(bot.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: "billing:get_invoce"' })
    expect((bot.body.error as { data?: unknown }).data).toBeUndefined()
  })

  it('a known tool withheld by a gate is a tool error carrying the same verdict as preflight', async () => {
    for (const [name, reason] of [['notes:export_notes', 'tool_pending_approval'], ['legacy-ci:run_job', 'server_disabled'], ['jira:create_ticket', 'oauth_required']]) {
      const r = await modernRpc(h.mcp, 'tools/call', { name, arguments: {} })
      expect(r.body.result!.isError, name).toBe(true)
      const check = JSON.parse(textOf(await call({ tool_ids: [name], check: true }))).results[0]
      const { id: _id, did_you_mean: _dym, ...verdict } = check
      expect(facetOf(r)).toEqual(verdict)
      expect(facetOf(r).reason).toBe(reason)
    }
  })

  it('a ready state-file server has no live connection in this process: refused as server_unhealthy', async () => {
    const r = await modernRpc(h.mcp, 'tools/call', { name: 'notes:read_note', arguments: { id: 'x' } }, { headers: { 'x-request-id': 'call-1' } })
    expect(r.body.result!.isError).toBe(true)
    expect(facetOf(r)).toMatchObject({ status: 'unavailable', reason: 'server_unhealthy', retryable: true })
    expect(recordsFor(h.db, 'call-1')).toMatchObject([{ type: 'tool.call', surface: null, server: 'notes' }])
  })
})
