import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '@/tests/helpers/cli'
import { AGENT, demoState, expectValidFacet, recordsFor, startHarness, type Harness } from './harness'

let h: Harness
beforeAll(async () => {
  h = await startHarness(demoState())
})
afterAll(async () => {
  await h?.server.stop()
})

// the demo agent's token from the environment, as a script would set it (--token overrides it)
const env = { TOOLGATE_AGENT_TOKEN: AGENT }
const inBand = (...args: string[]) => runCli(['tools', 'preflight', '--in-band', '--url', h.mcp, ...args], env)

describe('toolgate tools preflight --in-band', () => {
  it.each([
    [0, 'ready', ['notes:read_note', 'notes:search_notes']],
    [10, 'degraded_retryable', ['notes:read_note', 'search:web_search']],
    [11, 'blocked', ['notes:read_note', 'notes:export_notes', 'search:web_search']],
    [12, 'unknown_ids', ['notes:export_notes', 'wiki:page']],
  ])('exits %i for %s', async (code, verdict, ids) => {
    const r = await inBand(...ids)
    expect(r.code, r.stderr).toBe(code)
    expect(r.stdout).toContain(`VERDICT: ${verdict} (exit ${code})`)
  })

  it('prints the table with remediation, and the request id of the mcp-shape-a record', async () => {
    const r = await inBand('notes:export_notes', 'notes:read_not')
    expect(r.stdout).toMatch(/notes:export_notes\s+unavailable\s+tool_pending_approval\s+false\s+approve/)
    expect(r.stdout).toContain('fix: Review and approve: toolgate tools approve notes:export_notes')
    expect(r.stdout).toContain('did you mean: notes:read_note')
    const requestId = /request_id: (\S+)/.exec(r.stdout)![1]
    expect(recordsFor(h.db, requestId)).toMatchObject([{ surface: 'mcp-shape-a', tier: 'agent', actor: 'token:demo-agent' }])
  })

  it('-o json prints the facet; policy flags ride in the rider; --token sets the scope', async () => {
    const r = await inBand('-o', 'json', '--read-only-only', '--token', 'tg_at_demo_notes_bot_00', 'notes:write_note', 'billing:get_invoice')
    expect(r.code, r.stderr).toBe(12)
    const facet = JSON.parse(r.stdout)
    expectValidFacet(facet)
    expect(facet.tools.map((t: { reason: string }) => t.reason)).toEqual(['policy_filtered', 'not_found'])
    expect(recordsFor(h.db, facet.request_id)).toMatchObject([{ actor: 'token:notes-bot', data: { policy: { read_only_only: true } } }])
  })

  it('a path profile narrows the session', async () => {
    const r = await runCli(['tools', 'preflight', '--in-band', '--url', `${h.mcp}/p/ops`, 'billing:get_invoice'], env)
    expect(r.code).toBe(12)
  })

  it.each([
    [['--token', 'tg_at_nope_00000000', 'notes:read_note'], /answered HTTP 401: invalid agent token/],
    [['--profile', 'ops', 'notes:read_note'], /--profile: scope is the session's; use --url <base>\/mcp\/p\/<profile>/],
    [['--pin', 'notes:read_note=sha256/v1:00', 'notes:read_note'], /--pin: hash pins are reserved in band/],
    [['--wait', '2s', 'notes:read_note'], /--wait: the rider has no wait budget/],
    [['--db', 'other.db', 'notes:read_note'], /--db: --in-band asks the server at --url, whatever database it runs on/],
    [[], /give at least one tool id/],
    [Array.from({ length: 51 }, (_, i) => `notes:t${i}`), /too many tool ids: 51 \(max 50 in band\)/],
  ])('fails with exit 1: %j', async (args, message) => {
    const r = await inBand(...args)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(message)
  })

  it('exits 1 when the server cannot be reached or the profile is unknown', async () => {
    const down = await runCli(['tools', 'preflight', '--in-band', '--url', 'http://127.0.0.1:9/mcp', 'notes:read_note'])
    expect(down.code).toBe(1)
    const unknown = await runCli(['tools', 'preflight', '--in-band', '--url', `${h.mcp}/p/nope`, 'notes:read_note'], env)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('answered HTTP 404: no profile "nope" is available to this caller')
  })

  it('without a token, the server refuses with 401 and the CLI says so (exit 1)', async () => {
    const r = await runCli(['tools', 'preflight', '--in-band', '--url', h.mcp, 'notes:read_note'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('answered HTTP 401: missing credentials: /mcp needs Authorization: Bearer <agent token>')
  })

  it('without --url: $TOOLGATE_URL plus /mcp, named on stderr; with nothing to find, where to find the URL', async () => {
    const found = await runCli(['tools', 'preflight', '--in-band', 'notes:read_note'], { ...env, TOOLGATE_URL: h.server.url })
    expect(found.code, found.stderr).toBe(0)
    expect(found.stdout).toContain('VERDICT: ready (exit 0)')
    expect(found.stderr).toContain(`toolgate: note: asking ${h.mcp} ($TOOLGATE_URL, plus /mcp; --url to ask another)`)
    const none = await runCli(['tools', 'preflight', '--in-band', 'notes:read_note'], { ...env, TOOLGATE_URL: '', PORT: '9' })
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('--in-band needs toolgate\'s MCP endpoint: no --url, no $TOOLGATE_URL')
    expect(none.stderr).toContain('and none answers at http://127.0.0.1:9')
  })
})
