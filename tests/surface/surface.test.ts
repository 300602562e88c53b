import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { activity } from '@/db/schema'
import { eq } from 'drizzle-orm'
import { approveTool } from '@/lib/admin/tools'
import { surfaceReport } from '@/lib/surface/report'
import { runCli } from '@/tests/helpers/cli'
import { AGENT, legacyRpc, startHarness, type Harness, type State } from '@/tests/mcp/harness'

const schema = { type: 'object', properties: { q: { type: 'string' } } }
const tool = (name: string, description: string, approval?: 'pending') => ({ name, description, input_schema: schema, ...(approval ? { approval: { status: approval } } : {}) })
const NIGHTLY = 'tg_at_surface_nightly_000'

// 130 filler tools push the catalog past one tools/list page (100 per page)
const filler = Array.from({ length: 130 }, (_, i) => tool(`op_${String(i).padStart(3, '0')}`, `Operation number ${i} on widget ${i * 7} of the fleet ${i % 5}`))
const state: State = {
  servers: [
    { name: 'kb', connection: { state: 'ready' }, tools: [tool('find_notes', 'Search the knowledge base notes by keyword and return matching notes'), tool('delete_note', 'Permanently delete one note by its id')] },
    { name: 'wiki', connection: { state: 'ready' }, tools: [tool('search_notes', 'Search notes in the knowledge base by keyword, returning the matching notes', 'pending'), tool('page_history', 'Show the revision history of a wiki page')] },
    { name: 'billing', connection: { state: 'ready' }, tools: [tool('get_invoice', 'Fetch a customer invoice PDF by invoice number')] },
    { name: 'fleet', connection: { state: 'ready' }, tools: filler },
    // a quarantined newcomer whose tool reads like kb's: what a shadowing server looks like
    { name: 'shadow', quarantined: true, connection: { state: 'ready' }, tools: [tool('notes_lookup', 'Search the knowledge base notes by keyword and return the matching notes')] },
  ],
  profiles: [{ name: 'docs', servers: ['kb', 'wiki'] }],
  agent_tokens: [{ name: 'nightly', token: NIGHTLY, allowed_servers: ['kb', 'billing'], profile_pin: null }],
}

/** Every tool of one full tools/list, page by page, exactly as the wire carries it. */
async function listAll(url: string, token: string): Promise<unknown[]> {
  const all: unknown[] = []
  let cursor: string | undefined
  do {
    const r = await legacyRpc(url, 'tools/list', cursor ? { cursor } : {}, { authorization: `Bearer ${token}` })
    expect(r.status, r.text).toBe(200)
    all.push(...r.body.result!.tools)
    cursor = r.body.result!.nextCursor
  } while (cursor)
  return all
}

let h: Harness
beforeAll(async () => { h = await startHarness(state) }, 90_000)
afterAll(async () => { await h?.server.stop() })

describe('surface report', () => {
  it("counts the tokens of exactly what one full tools/list of the scope returns, page by page", async () => {
    const wire = await listAll(h.mcp, AGENT) // the all-servers token: the whole served catalog
    expect(wire.length).toBeGreaterThan(100)
    const r = surfaceReport(h.db, { kind: 'catalog' })
    expect(r.list_tokens).toBe(countTokens(JSON.stringify(wire)))
    expect(r.tools).toBe(wire.length - 1) // describe_tool is listed but is toolgate's own
    expect(r.tools).toBe(2 + 1 + 1 + 130) // the pending wiki:search_notes is not served

    const nightly = await listAll(h.mcp, NIGHTLY)
    const t = surfaceReport(h.db, { kind: 'token', name: 'nightly' })
    expect(t.list_tokens).toBe(countTokens(JSON.stringify(nightly)))
    expect(t.catalog.map((c) => c.id)).toEqual(['billing:get_invoice', 'kb:delete_note', 'kb:find_notes'])
    for (const c of t.catalog) expect(c.tokens).toBe(countTokens(JSON.stringify(nightly.find((x) => (x as { name: string }).name === c.id))))
  })

  it('a profile narrows both the count and the tokens, and its report comes from the CLI as documented', async () => {
    const all = JSON.parse((await runCli(['surface', 'report', '-o', 'json', '--db', h.file])).stdout)
    const cli = await runCli(['surface', 'report', '--profile', 'docs', '-o', 'json', '--db', h.file])
    expect(cli.code, cli.stderr).toBe(0)
    const docs = JSON.parse(cli.stdout)
    expect(Object.keys(docs).sort()).toEqual(['catalog', 'encoding', 'heaviest', 'list_tokens', 'max_overlap', 'pairs', 'scope', 'servers', 'tools'])
    expect(docs).toMatchObject({ scope: { kind: 'profile', name: 'docs' }, encoding: 'o200k_base', tools: 3 })
    expect(docs.tools).toBeLessThan(all.tools)
    expect(docs.list_tokens).toBeLessThan(all.list_tokens)
    expect(docs.heaviest[0].tokens).toBeGreaterThanOrEqual(docs.heaviest.at(-1).tokens)
    const text = await runCli(['surface', 'report', '--token', 'nightly', '--db', h.file])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(`token nightly: 3 tools, ${surfaceReport(h.db, { kind: 'token', name: 'nightly' }).list_tokens} tokens per tools/list (o200k_base)`)
    const bad = await runCli(['surface', 'report', '--profile', 'nope', '--db', h.file])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('no profile "nope" exists')
  })

  it('with a ceiling set, approving a tool that reads like a served one asks first, then records the crossing', async () => {
    const set = await runCli(['settings', 'set', 'max_description_overlap', '0.6', '--db', h.file])
    expect(set.code, set.stderr).toBe(0)
    const refused = await runCli(['tools', 'approve', 'wiki:search_notes', '--db', h.file])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('wiki:search_notes reads like kb:find_notes')
    expect(refused.stderr).toContain('across servers')
    expect(surfaceReport(h.db, { kind: 'catalog' }).catalog.map((c) => c.id)).not.toContain('wiki:search_notes') // nothing changed

    // an unrelated approval passes without asking
    await expect(approveTool(h.db, 'wiki:page_history', { actor: 'test' })).resolves.toBeDefined()

    const confirmed = await runCli(['tools', 'approve', 'wiki:search_notes', '--yes', '--db', h.file])
    expect(confirmed.code, confirmed.stderr).toBe(0)
    const records = h.db.select().from(activity).where(eq(activity.type, 'surface.over_ceiling')).all()
    // the whole catalog, profile docs and the all-servers token serve both tools; token nightly does not reach wiki
    expect(records.map((r) => (r.data as { target: string }).target).sort()).toEqual(['profile docs', 'the whole catalog', 'token demo-agent'])
    for (const r of records) expect(r.data).toMatchObject({ after: { a: 'kb:find_notes', b: 'wiki:search_notes', cross_server: true, ceiling: 0.6 } })
    const report = surfaceReport(h.db, { kind: 'catalog' })
    expect(report.max_overlap).toMatchObject({ a: 'kb:find_notes', b: 'wiki:search_notes', cross_server: true })
    expect(report.max_overlap!.score).toBeGreaterThan(0.6)

    // releasing a server asks the same way, and records what it confirmed
    const release = await runCli(['upstream', 'unquarantine', 'shadow', '--db', h.file])
    expect(release.code).toBe(1)
    expect(release.stderr).toMatch(/releasing shadow would bring tools over the description-overlap ceiling: in the whole catalog, shadow:notes_lookup reads like (kb:find_notes|wiki:search_notes)/)
    expect(surfaceReport(h.db, { kind: 'catalog' }).catalog.map((c) => c.id)).not.toContain('shadow:notes_lookup')
    const released = await runCli(['upstream', 'unquarantine', 'shadow', '--yes', '-o', 'json', '--db', h.file])
    expect(released.code, released.stderr).toBe(0)
    expect(JSON.parse(released.stdout)).toMatchObject({ name: 'shadow', before: { quarantined: true }, after: { quarantined: false } })
    expect(surfaceReport(h.db, { kind: 'catalog' }).catalog.map((c) => c.id)).toContain('shadow:notes_lookup')
    const shadowRecords = h.db.select().from(activity).where(eq(activity.type, 'surface.over_ceiling')).all().filter((r) => r.server === 'shadow' || JSON.stringify(r.data).includes('shadow:'))
    expect(shadowRecords.length).toBeGreaterThan(0)
  })
})
