import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { taxonomy, exitCodes, type Reason } from '@/lib/preflight/taxonomy'
import { loadState } from '@/lib/state/load'
import { openDb } from '@/lib/server/database'
import { freshDb, demoStateFile, tempDbFile } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { NOT_FOUND_DETAIL } from '@/lib/preflight/evaluate'
import { startServer, type RunningServer } from '@/tests/helpers/server'

const NIGHTLY = 'tg_at_demo_nightly_0000'
const demo = () => JSON.parse(readFileSync(demoStateFile(), 'utf8'))

/** A demo database of its own, so parallel tests never see each other's changes; `change` edits the state first. */
async function demoDb(change: (state: ReturnType<typeof demo>) => void = () => {}): Promise<string> {
  const { db, file } = freshDb()
  const state = demo()
  change(state)
  await loadState(db, state, 'test')
  db.$client.close()
  return file
}

const cases: { reason: Reason; args: string[]; agent: boolean }[] = [
  { reason: 'server_initializing', args: ['search:web_search'], agent: true },
  { reason: 'server_unhealthy', args: ['slack:post_message'], agent: true },
  { reason: 'server_disabled', args: ['legacy-ci:run_job'], agent: true },
  { reason: 'server_quarantined', args: ['github:list_issues'], agent: true },
  { reason: 'tool_pending_approval', args: ['notes:export_notes'], agent: true },
  { reason: 'tool_changed', args: ['notes:share_note'], agent: true },
  { reason: 'tool_blocked_by_user', args: ['notes:purge_notes'], agent: true },
  { reason: 'oauth_required', args: ['jira:create_ticket'], agent: true },
  { reason: 'hash_mismatch', args: ['notes:read_note', '--pin', `notes:read_note=sha256/v3:${'0'.repeat(64)}`], agent: true },
  { reason: 'server_not_in_scope', args: ['billing:get_invoice', '--profile', 'ops'], agent: false },
  { reason: 'tool_denied_by_config', args: ['notes:rebuild_index'], agent: true },
  { reason: 'missing_annotation', args: ['notes:tag_note', '--read-only-only'], agent: true },
  { reason: 'policy_filtered', args: ['notes:delete_note', '--exclude-destructive'], agent: true },
  { reason: 'not_found', args: ['notes:no_such_tool'], agent: true },
  { reason: 'server_not_configured', args: ['wiki:page'], agent: false },
]

let file: string
beforeAll(async () => {
  file = await demoDb()
})

describe.concurrent('tools preflight: every code, its exit code and JSON fields', () => {
  it.each(cases)('operator tier: $reason', async ({ reason, args }) => {
    const r = await runCli(['tools', 'preflight', ...args, '-o', 'json', '--db', file])
    const spec = taxonomy[reason]
    expect(r.code, r.stderr).toBe(exitCodes[spec.verdict])
    const data = JSON.parse(r.stdout)
    expect(data.verdict).toBe(spec.verdict)
    expect(data.tools[0]).toMatchObject({ status: 'unavailable', reason, retryable: spec.retryable })
    if ('action' in spec) expect(data.tools[0].action).toBe(reason === 'server_unhealthy' ? 'restart' : spec.action)
    else expect(data.tools[0]).not.toHaveProperty('action')
  })

  it.each(cases.filter((c) => c.agent))('agent tier (--token): $reason', async ({ reason, args }) => {
    const r = await runCli(['tools', 'preflight', ...args, '-o', 'json', '--token', NIGHTLY, '--db', file])
    expect(r.code, r.stderr).toBe(exitCodes[taxonomy[reason].verdict])
    expect(JSON.parse(r.stdout).tools[0]).toMatchObject({ reason })
  })

  it('agent tier (--token): out-of-scope and unconfigured collapse to not_found, byte for byte, exit 12', async () => {
    const absent = await runCli(['tools', 'preflight', 'notes:no_such_tool', '-o', 'json', '--token', NIGHTLY, '--db', file])
    const { id: _, ...notFound } = JSON.parse(absent.stdout).tools[0]
    expect(notFound).toMatchObject({ reason: 'not_found', detail: NOT_FOUND_DETAIL })
    for (const id of ['billing:get_invoice', 'wiki:page']) {
      const r = await runCli(['tools', 'preflight', id, '-o', 'json', '--token', NIGHTLY, '--db', file])
      expect(r.code).toBe(12)
      expect(JSON.parse(r.stdout).tools[0]).toEqual({ id, ...notFound })
    }
  })

  it('operator tier: server_not_in_scope names the profile that narrowed it', async () => {
    const r = await runCli(['tools', 'preflight', 'billing:get_invoice', '--profile', 'ops', '-o', 'json', '--db', file])
    expect(r.code).toBe(11)
    expect(JSON.parse(r.stdout).tools[0]).toMatchObject({ reason: 'server_not_in_scope', detail: 'outside profile "ops"; agents in it see not_found' })
  })

  it('exit 0 when every tool is ready; table output ends with the verdict and the request id', async () => {
    const r = await runCli(['tools', 'preflight', 'notes:read_note', 'notes:search_notes', '--db', file])
    expect(r.code).toBe(0)
    const last = r.stdout.trim().split('\n').at(-1)!
    expect(last).toMatch(/^VERDICT: ready \(exit 0\) {2}request_id: req_[0-9A-Z]{26}$/)
  })

  it('the check is on the record: activity list --request-id finds it', async () => {
    const r = await runCli(['tools', 'preflight', 'notes:export_notes', 'notes:reed_note', '--db', file])
    expect(r.code).toBe(12)
    expect(r.stdout).toContain('did you mean: notes:read_note')
    const requestId = /request_id: (\S+)/.exec(r.stdout)![1]
    const list = await runCli(['activity', 'list', '--request-id', requestId, '-o', 'json', '--db', file])
    const [rec] = JSON.parse(list.stdout)
    expect(rec).toMatchObject({ request_id: requestId, type: 'preflight', surface: 'cli', tier: 'operator', verdict: 'unknown_ids' })
    expect(rec.data.tools).toEqual([
      { id: 'notes:export_notes', status: 'unavailable', reason: 'tool_pending_approval' },
      { id: 'notes:reed_note', status: 'unavailable', reason: 'not_found' },
    ])
    const show = await runCli(['activity', 'show', String(rec.id), '--db', file])
    expect(JSON.parse(show.stdout)).toEqual(rec)
  })

  it.each([
    [['tools', 'preflight'], 'at least one tool id'],
    [['tools', 'preflight', 'a:b', '--wait', '11s'], '--wait must be at most 10s'],
    [['tools', 'preflight', 'a:b', '--wait', 'soon'], 'duration'],
    [['tools', 'preflight', 'a:b', '--pin', 'c:d=sha256/v1:00'], 'not a requested id'],
    [['tools', 'preflight', 'a:b', '--frobnicate'], 'unknown flag --frobnicate for toolgate tools preflight'],
    [['tools', 'preflight', 'a:b', '-o', 'yaml'], '-o must be table or json'],
    [['tools', 'preflight', 'a:b', '--profile', 'nope'], 'unknown profile "nope"'],
    [['tools', 'preflight', 'a:b', '--token', 'wrong'], 'invalid agent token'],
    [['tools', 'approve', 'notes:ghost'], 'no tool "notes:ghost"'],
    [['upstream', 'enable', 'ghost'], 'no server "ghost"'],
    [['activity', 'show', '999999'], 'no activity record 999999'],
    [['nonsense'], 'unknown command'],
  ])('exit 1 with a clear message: %j', async (args, message) => {
    const r = await runCli([...args, '--db', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(message)
  })
})

describe('operator actions', () => {
  it('approve, enable and unquarantine fix their rows, each recorded with who and before/after', async () => {
    // github and legacy-ci are state-file examples in the demo (never ready: nothing behind them); here they get a transport
    const db = await demoDb((s) => {
      for (const srv of s.servers) if (srv.name === 'github' || srv.name === 'legacy-ci') srv.transport = { url: 'http://127.0.0.1:9/mcp' }
    })
    const before = await runCli(['tools', 'preflight', 'notes:export_notes', 'notes:purge_notes', 'github:list_issues', 'legacy-ci:run_job', '--db', db])
    expect(before.code).toBe(11)
    // purge_notes is annotated destructive and was blocked on purpose: unblocking it takes a yes
    const unconfirmed = await runCli(['tools', 'enable', 'notes:purge_notes', '--db', db])
    expect(unconfirmed.code).toBe(1)
    expect(unconfirmed.stderr).toContain('notes:purge_notes is annotated destructive and was blocked by an operator: confirm to unblock it (--yes)')
    for (const args of [['tools', 'approve', 'notes:export_notes'], ['tools', 'enable', 'notes:purge_notes', '--yes'], ['upstream', 'unquarantine', 'github'], ['upstream', 'enable', 'legacy-ci']]) {
      const r = await runCli([...args, '--db', db])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/→/)
    }
    const after = await runCli(['tools', 'preflight', 'notes:export_notes', 'notes:purge_notes', 'github:list_issues', 'legacy-ci:run_job', '--db', db])
    expect(after.code, after.stdout).toBe(0)
    const list = JSON.parse((await runCli(['activity', 'list', '--type', 'tool.approved', '-o', 'json', '--db', db])).stdout)
    expect(list[0]).toMatchObject({ type: 'tool.approved', actor: expect.stringMatching(/^cli/), server: 'notes',
      data: { target: 'notes:export_notes', before: { status: 'pending', disabled: false }, after: { status: 'approved', disabled: false } } })
    const q = JSON.parse((await runCli(['activity', 'list', '--type', 'server.unquarantined', '-o', 'json', '--db', db])).stdout)
    expect(q[0].data).toMatchObject({ before: { quarantined: true }, after: { quarantined: false } })
    // blocking is recorded and takes effect
    expect((await runCli(['tools', 'block', 'notes:read_note', '--db', db])).code).toBe(0)
    expect((await runCli(['tools', 'preflight', 'notes:read_note', '--db', db])).code).toBe(11)
  })

  it('tools list shows each tool\'s status and pin', async () => {
    const r = await runCli(['tools', 'list', '-o', 'json', '--db', file])
    const rows = JSON.parse(r.stdout) as { id: string; status: string; pin: string }[]
    expect(rows.find((t) => t.id === 'notes:read_note')).toMatchObject({ status: 'callable', pin: expect.stringMatching(/^sha256\/v3:[0-9a-f]{64}$/) })
    expect(rows.find((t) => t.id === 'notes:export_notes')).toMatchObject({ status: 'tool_pending_approval' })
    expect(rows.find((t) => t.id === 'github:list_issues')).toMatchObject({ status: 'server_quarantined' })
  })
})

describe('state load and dump', () => {
  it('load rejects a bad file with path-named errors, exit 1, and leaves the database untouched', async () => {
    const db = await demoDb()
    const before = (await runCli(['state', 'dump', '--db', db])).stdout
    const bad = demo()
    bad.servers[0].trust = 'sometimes'
    bad.servers[3].tools[0].approval = { status: 'maybe' }
    const badFile = path.join(path.dirname(db), 'bad.json')
    writeFileSync(badFile, JSON.stringify(bad))
    const r = await runCli(['state', 'load', badFile, '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('servers[0].trust')
    expect(r.stderr).toContain('servers[3].tools[0].approval.status')
    expect((await runCli(['state', 'dump', '--db', db])).stdout).toBe(before)
    writeFileSync(badFile, '{ not json')
    const notJson = await runCli(['state', 'load', badFile, '--db', db])
    expect(notJson.code).toBe(1)
    expect(notJson.stderr).toContain('cannot read')
  })

  it('dump | load round-trips', async () => {
    const a = await demoDb()
    const dumped = (await runCli(['state', 'dump', '--db', a])).stdout
    const b = tempDbFile()
    const load = await runCli(['state', 'load', '-', '--db', b], {}, dumped)
    expect(load.code, load.stderr).toBe(0)
    expect((await runCli(['state', 'dump', '--db', b])).stdout).toBe(dumped)
  })
})

describe('failures are errors, never verdicts', () => {
  it('exit 1 and no verdict when the activity record cannot be written', async () => {
    const f = await demoDb()
    const db = openDb(f)
    db.$client.exec(`CREATE TRIGGER refuse_activity BEFORE INSERT ON activity BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`)
    db.$client.close()
    const r = await runCli(['tools', 'preflight', 'notes:read_note', '--db', f])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('activity record not persisted')
    expect(r.stdout).not.toContain('VERDICT')
  })
})

describe('--url: asking a running server over REST', () => {
  let server: RunningServer
  const key = 'tg_op_cli_url_test_key_00000000'
  beforeAll(async () => {
    server = await startServer({ TOOLGATE_DB: await demoDb(), TOOLGATE_API_KEY: key })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('gives the same verdicts and exit codes as the direct path, at both tiers', async () => {
    const op = await runCli(['tools', 'preflight', 'notes:read_note', 'notes:export_notes', '--url', server.url, '-o', 'json'], { TOOLGATE_API_KEY: key })
    expect(op.code).toBe(11)
    expect(JSON.parse(op.stdout).tools[1]).toMatchObject({ reason: 'tool_pending_approval' })
    const ag = await runCli(['tools', 'preflight', 'billing:get_invoice', '--url', server.url, '--token', NIGHTLY, '-o', 'json'])
    expect(ag.code).toBe(12)
    expect(JSON.parse(ag.stdout).tools[0]).toMatchObject({ reason: 'not_found' })
    const retry = await runCli(['tools', 'preflight', 'search:web_search', '--url', server.url, '--wait', '300ms', '-o', 'json'], { TOOLGATE_API_KEY: key })
    expect(retry.code).toBe(10)
    expect(JSON.parse(retry.stdout).waited_ms).toBeGreaterThanOrEqual(300)
  })

  it('exit 1 on a server error, with its message', async () => {
    const r = await runCli(['tools', 'preflight', 'a:b', '--url', server.url], { TOOLGATE_API_KEY: 'wrong' })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('401')
    expect(r.stderr).toContain('invalid X-API-Key')
  })
})

describe('upstream login where a login cannot help', () => {
  it('names what to do instead: a state-file server has nothing to log in to, a stdio server takes secrets', async () => {
    const f = await demoDb()
    const search = await runCli(['upstream', 'login', 'search', '--db', f])
    expect(search.code).toBe(1)
    expect(search.stderr).toContain('server "search" has no transport')
    expect(search.stderr).toContain('toolgate upstream add search --url')
    const notebook = await runCli(['upstream', 'login', 'notebook', '--db', f])
    expect(notebook.code).toBe(1)
    expect(notebook.stderr).toContain('server "notebook" runs over stdio')
    expect(notebook.stderr).toContain('toolgate upstream set-secret notebook <NAME>')
  })
})
