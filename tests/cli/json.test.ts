import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDb } from '@/lib/server/database'
import { getActivity } from '@/db/queries/activity'
import { requestCall } from '@/lib/approvals/calls'
import { runCli } from '@/tests/helpers/cli'
import { startOAuthFixture, type OAuthFixture } from '@/tests/fixtures/oauth-upstream'
import { demoDbFile, json } from './helpers'

const REQ = /^req_[0-9A-Z]{26}$/

/** Run a mutation with -o json: exit 0, and a JSON body whose activity_id is a record of `type` under its request_id. */
async function mutate(file: string, args: string[], type: string, input?: string, env: Record<string, string> = {}) {
  const r = await runCli([...args, '-o', 'json', '--db', file], env, input)
  expect(r.code, r.stderr).toBe(0)
  const out = json<Record<string, unknown> & { activity_id: number; request_id: string }>(r)
  expect(out.request_id).toMatch(REQ)
  const db = openDb(file)
  const record = getActivity(db, out.activity_id)
  db.$client.close()
  expect(record, `record ${out.activity_id}`).toMatchObject({ type, requestId: out.request_id, actor: expect.stringMatching(/^cli/) })
  return { out, record: record! }
}

// many real CLI runs per test, on machines shared with other work
describe('-o json on every mutation: what changed, before/after, the record and the request', { timeout: 180_000 }, () => {
  let file: string
  beforeAll(async () => {
    file = await demoDbFile()
  })

  it('tools approve, block, enable and call-approval', async () => {
    const approve = await mutate(file, ['tools', 'approve', 'notes:export_notes'], 'tool.approved')
    expect(approve.out).toMatchObject({ id: 'notes:export_notes', before: { status: 'pending', disabled: false }, after: { status: 'approved', disabled: false }, pin: expect.stringMatching(/^sha256\/v3:[0-9a-f]{64}$/) })
    const block = await mutate(file, ['tools', 'block', 'notes:read_note'], 'tool.blocked')
    expect(block.out).toMatchObject({ id: 'notes:read_note', before: { disabled: false }, after: { disabled: true } })
    const enable = await mutate(file, ['tools', 'enable', 'notes:read_note'], 'tool.enabled')
    expect(enable.out).toMatchObject({ before: { disabled: true }, after: { disabled: false } })
    const held = await mutate(file, ['tools', 'call-approval', 'notes:read_note', 'on'], 'tool.call_approval')
    expect(held.out).toMatchObject({ id: 'notes:read_note', before: { call_approval: false }, after: { call_approval: true } })
  })

  it('calls approve and deny: recorded under the request that made the call', async () => {
    const db = openDb(file)
    const a = await requestCall(db, { server: 'notes', tool: 'read_note', args: { id: 1 }, caller: 'agent:test', requestId: 'req_0000000000AAAAAAAAAAAAAAAA' })
    const d = await requestCall(db, { server: 'notes', tool: 'read_note', args: { id: 2 }, caller: 'agent:test', requestId: 'req_0000000000BBBBBBBBBBBBBBBB' })
    db.$client.close()
    const approved = await mutate(file, ['calls', 'approve', a.call.id], 'call.approved')
    expect(approved.out).toMatchObject({ id: a.call.id, tool: 'notes:read_note', status: 'approved', before: { status: 'pending' }, after: { status: 'approved' }, request_id: 'req_0000000000AAAAAAAAAAAAAAAA' })
    const denied = await mutate(file, ['calls', 'deny', d.call.id, '--reason', 'not today'], 'call.denied')
    expect(denied.out).toMatchObject({ status: 'denied', reason: 'not today', after: { status: 'denied' } })
  })

  it('upstream add, set, oauth, enable/disable/quarantine/unquarantine, restart, set-secret, remove', async () => {
    const added = await mutate(file, ['upstream', 'add', 'scratch', '--command', process.execPath, '--arg=-e', '--env', 'TOKEN=s3cret'], 'server.added')
    expect(added.out).toMatchObject({ name: 'scratch', before: null, after: { quarantined: true, trust: 'manual', secrets: ['TOKEN'] } })
    expect(JSON.stringify(added.out)).not.toContain('s3cret')
    const web = await mutate(file, ['upstream', 'add', 'web', '--url', 'https://mcp.example.com/mcp', '--client-id', 'tg', '--client-secret', 'shh', '--trusted'], 'server.added')
    expect(web.out).toMatchObject({ after: { quarantined: false }, oauth: { grant: 'authorization_code', client: 'pre-registered', secret: true, activity_id: expect.any(Number) } })
    expect(JSON.stringify(web.out)).not.toContain('shh')
    // the server and its OAuth client are one change: a client the check refuses adds no server either
    const refused = await runCli(['upstream', 'add', 'half', '--url', 'https://mcp.example.com/mcp', '--oauth', 'client-credentials', '-o', 'json', '--db', file])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('client credentials need a client id')
    const listed = await runCli(['upstream', 'list', '-o', 'json', '--db', file])
    expect(listed.stdout).toContain('"web"')
    expect(listed.stdout).not.toContain('"half"')
    const set = await mutate(file, ['upstream', 'set', 'scratch', '--call-timeout', '30m', '--root', 'file:///tmp'], 'server.configured')
    expect(set.out).toMatchObject({ name: 'scratch', before: { callTimeoutMs: 600_000, roots: [] }, after: { callTimeoutMs: 1_800_000, roots: [{ uri: 'file:///tmp' }] } })
    const oauth = await mutate(file, ['upstream', 'oauth', 'web', '--oauth', 'client-credentials', '--client-id', 'svc', '--client-secret', 'x'], 'server.oauth_configured')
    expect(oauth.out).toMatchObject({ name: 'web', oauth: { grant: 'client_credentials', client: 'pre-registered', secret: true } })
    for (const [verb, type, before, after] of [
      ['disable', 'server.disabled', { enabled: true, quarantined: true }, { enabled: false, quarantined: true }],
      ['enable', 'server.enabled', { enabled: false, quarantined: true }, { enabled: true, quarantined: true }],
      ['unquarantine', 'server.unquarantined', { enabled: true, quarantined: true }, { enabled: true, quarantined: false }],
      ['quarantine', 'server.quarantined', { enabled: true, quarantined: false }, { enabled: true, quarantined: true }],
    ] as const) {
      const r = await mutate(file, ['upstream', verb, 'scratch'], type)
      expect(r.out, verb).toMatchObject({ name: 'scratch', before, after })
    }
    const restart = await mutate(file, ['upstream', 'restart', 'scratch'], 'server.restart_requested')
    expect(restart.out).toMatchObject({ name: 'scratch' })
    const secret = await mutate(file, ['upstream', 'set-secret', 'scratch', 'OTHER'], 'server.secret_set', 'hidden-value\n')
    expect(secret.out).toEqual({ name: 'scratch', secret: 'OTHER', activity_id: secret.out.activity_id, request_id: secret.out.request_id })
    const removed = await mutate(file, ['upstream', 'remove', 'scratch'], 'server.removed')
    expect(removed.out).toMatchObject({ name: 'scratch', before: { enabled: true, quarantined: true, transport: `${process.execPath} -e` }, after: null })
  })

  it('upstream import: each imported server with its record, the refused ones named; exit 1 when any was refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-import-'))
    const doc = path.join(dir, 'mcp.json')
    writeFileSync(doc, JSON.stringify({ mcpServers: { one: { command: 'node' }, two: { url: 'https://two.example.com/mcp' }, 'bad name': { command: 'x' } } }))
    const r = await runCli(['upstream', 'import', doc, '-o', 'json', '--db', file])
    expect(r.code).toBe(1)
    const out = json<{ imported: { name: string; activity_id: number }[]; refused: { name: string }[]; request_id: string }>(r)
    expect(out.imported.map((i) => i.name)).toEqual(['one', 'two'])
    expect(out.refused.map((i) => i.name)).toEqual(['bad name'])
    const db = openDb(file)
    for (const i of out.imported) expect(getActivity(db, i.activity_id)).toMatchObject({ type: 'server.added', requestId: out.request_id, data: { target: i.name } })
    db.$client.close()
  })

  it('upstream inspect: the tools listed for review and the inspection\'s record', async () => {
    const notebook = path.resolve(import.meta.dirname, '..', '..', 'demo', 'upstreams', 'notebook.mjs')
    await mutate(file, ['upstream', 'add', 'nb', '--command', process.execPath, '--arg', notebook], 'server.added')
    const r = await runCli(['upstream', 'inspect', 'nb', '-o', 'json', '--db', file])
    expect(r.code, r.stderr).toBe(0)
    const out = json<{ name: string; listed: number; tools: { id: string; status: string }[]; activity_id: number; request_id: string }>(r)
    expect(out.listed).toBeGreaterThan(0)
    expect(out.tools).toHaveLength(out.listed)
    expect(out.tools.every((t) => t.id.startsWith('nb:') && t.status === 'server_quarantined')).toBe(true)
    const db = openDb(file)
    expect(getActivity(db, out.activity_id)).toMatchObject({ type: 'server.inspected', requestId: out.request_id, server: 'nb' })
    db.$client.close()
  })

  it('settings set, state load, activity prune, operator-key rotate', async () => {
    const s = await mutate(file, ['settings', 'set', 'activity_retention_days', '30'], 'settings.changed')
    expect(s.out).toMatchObject({ changed: 'activity_retention_days', before: { activity_retention_days: 90 }, after: { activity_retention_days: 30 } })

    const dumped = (await runCli(['state', 'dump', '--db', file])).stdout
    const loaded = await mutate(file, ['state', 'load', '-'], 'state.loaded', dumped)
    const counts = { servers: expect.any(Number), tools: expect.any(Number), profiles: expect.any(Number), agent_tokens: expect.any(Number) }
    expect(loaded.out).toMatchObject({ file: '-', before: counts, after: counts })
    expect(loaded.out.after).toEqual(loaded.out.before) // a dump loaded back is the same state

    // pruning takes the oldest records in commit order (a prefix: the chain stays whole), here those of the first millisecond
    const db = openDb(file)
    const times = db.$client.prepare('select at from activity order by id').pluck().all() as number[]
    db.$client.close()
    const before = new Date(times[0] + 1).toISOString()
    const oldest = times.findIndex((at) => at > times[0])
    const pruned = await mutate(file, ['activity', 'prune', '--before', before], 'activity.pruned')
    expect(pruned.out).toMatchObject({ before, deleted: oldest, records: expect.any(Number), db_bytes: expect.any(Number), wal_bytes: expect.any(Number) })
    const nothing = json(await runCli(['activity', 'prune', '--before', before, '-o', 'json', '--db', file]))
    expect(nothing).toMatchObject({ deleted: 0, activity_id: null, request_id: null })

    const rotated = await mutate(file, ['operator-key', 'rotate'], 'operator_key.rotated', undefined, { TOOLGATE_API_KEY: '' })
    expect(rotated.out).toEqual({ operator_key: expect.stringMatching(/^tg_op_/), sessions_signed_out: 0, activity_id: expect.any(Number), request_id: expect.any(String) })
    const after = openDb(file)
    // the record says the key changed, never what it is
    expect(JSON.stringify(getActivity(after, rotated.out.activity_id as number))).not.toContain(rotated.out.operator_key as string)
    after.$client.close()
  })

  describe('upstream login', () => {
    let fx: OAuthFixture
    beforeAll(async () => {
      fx = await startOAuthFixture()
    })
    afterAll(async () => {
      await fx?.close()
    })

    it('the login URL and the record of the login started', async () => {
      await mutate(file, ['upstream', 'add', 'guarded', '--url', fx.url, '--trusted'], 'server.added')
      const login = await mutate(file, ['upstream', 'login', 'guarded', '--url', 'http://127.0.0.1:3999'], 'server.login_started')
      expect(login.out).toMatchObject({ name: 'guarded', url: expect.stringContaining('/authorize?') })
    })
  })
})

describe('errors in JSON mode are JSON on stderr, with a code and a hint', () => {
  let file: string
  beforeAll(async () => {
    file = await demoDbFile()
  })

  it.each([
    [['tools', 'approve', 'notes:ghost'], 'not_found', 'no tool "notes:ghost"', 'toolgate tools list shows the known tools'],
    [['upstream', 'enable', 'ghost'], 'not_found', 'no server "ghost"', 'toolgate upstream list shows the servers'],
    [['tools', 'preflight'], 'usage', 'give at least one tool id', 'toolgate tools preflight --help shows its usage'],
    [['tools', 'preflight', 'a:b', '--token', 'wrong'], 'unauthorized', 'invalid agent token', 'check the credentials'],
    [['upstream', 'list', '--frobnicate'], 'usage', 'unknown flag --frobnicate for toolgate upstream list', 'toolgate upstream list --help lists its flags'],
    [['nonsense'], 'usage', 'unknown command "nonsense"', 'toolgate --help lists the commands'],
    // a malformed pin is named as such, not as a definition that changed
    [['tools', 'approve', 'notes:share_note', '--hash', 'sha256/v3:deadbeef'], 'bad_request', '"sha256/v3:deadbeef" is not a pin: a pin is sha256/v3:<64 hex digits>, as `toolgate tools show notes:share_note` prints it', ''],
  ])('%j', async (args, code, message, hint) => {
    const r = await runCli([...args, '-o', 'json', '--db', file])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    const { error } = JSON.parse(r.stderr)
    expect(error.code).toBe(code)
    expect(error.message).toContain(message)
    expect(error.hint).toContain(hint)
  })

  it('in table mode the same error is prose with the hint on its own line', async () => {
    const r = await runCli(['tools', 'approve', 'notes:ghost', '--db', file])
    expect(r.stderr).toMatch(/^toolgate: no tool "notes:ghost".*\nhint: toolgate tools list shows the known tools\n$/)
  })
})
