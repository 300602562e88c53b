import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { openDb } from '@/lib/server/database'
import { activity, serverOauth, serverSecrets } from '@/db/schema'
import { sealOauth, sealSecret } from '@/db/secrets'
import { dumpState } from '@/lib/state/dump'
import { loadState } from '@/lib/state/load'
import { demoStateFile } from '@/lib/state/demo'
import { reasons } from '@/lib/preflight/taxonomy'
import { hashSecret } from '@/lib/auth/secrets'
import { agentTokens } from '@/db/schema'
import { check, operator } from '@/tests/helpers/evaluate'
import { agentCaller, personalTokenPrincipal } from '@/lib/auth/caller'
import { eq } from 'drizzle-orm'
import { operators } from '@/db/schema'
import { operatorByLogin, operatorList } from '@/db/queries/operators'
import { addOperator, changeOperator, createPersonalToken } from '@/lib/admin/operators'
import { isValidSession, signInWithPassword } from '@/lib/auth/operator-sessions'
import { updateSettings } from '@/lib/admin/settings'
import { firstApprovals, twoPersonGate, type Approval } from '@/lib/approvals/two-person'
import { listActivity } from '@/db/queries/activity'

const demo = () => JSON.parse(readFileSync(demoStateFile(), 'utf8'))

describe('state load', () => {
  it('rejects a bad file listing every problem by JSON path, and changes nothing', async () => {
    const db = openDb(':memory:')
    await loadState(db, demo(), 'test')
    const before = JSON.stringify(dumpState(db))
    const activityBefore = db.select().from(activity).all().length
    const bad = demo()
    bad.servers[2].connection.state = 'sleeping'
    bad.servers[0].tools[1].name = bad.servers[0].tools[0].name
    bad.servers[1].name = 'has:colon'
    bad.agent_tokens[0].surprise = true
    bad.profiles.push({ name: 'ops', servers: [] })
    let message = ''
    try {
      await loadState(db, bad, 'test')
    } catch (e) {
      message = (e as Error).message
    }
    expect(message).toContain('servers[2].connection.state')
    expect(message).toMatch(/expected one of .*"ready"/)
    expect(message).toContain('servers[0].tools[1].name: duplicate tool name "read_note"')
    expect(message).toContain('servers[1].name: server name may use letters, digits, ".", "_" and "-", starting with a letter or digit (no ":")')
    expect(message).toContain('agent_tokens[0]: Unrecognized key: "surprise"')
    expect(message).toContain('profiles[1].name: duplicate profile name "ops"')
    expect(JSON.stringify(dumpState(db))).toBe(before)
    expect(db.select().from(activity).all().length).toBe(activityBefore)
  })

  it('rejects a missing or wrong version', async () => {
    const db = openDb(':memory:')
    await expect(loadState(db, { servers: [] }, 'test')).rejects.toThrow(/version/)
    await expect(loadState(db, { version: 2 }, 'test')).rejects.toThrow(/version/)
  })

  it('stores token secrets only as hashes', async () => {
    const db = openDb(':memory:')
    await loadState(db, demo(), 'test')
    const rows = db.select().from(agentTokens).all()
    expect(rows.map((r) => r.tokenHash)).toContain(hashSecret('tg_at_demo_nightly_0000'))
    expect(JSON.stringify(rows)).not.toContain('tg_at_demo_nightly_0000')
    expect(JSON.stringify(dumpState(db))).not.toContain('tg_at_demo_nightly_0000')
  })
})

describe('state dump', () => {
  it('round-trips with load, tokens and settings included', async () => {
    const a = openDb(':memory:')
    await loadState(a, { ...demo(), settings: { quarantine_enabled: false, mcp_anonymous_profile: 'ops', activity_retention_days: null, call_approval_wait_ms: 1500, max_description_overlap: 0.8, agent_requests_per_second: null, agent_recorded_mib_per_hour: 8, break_glass_key: true, two_person_rule: 'all', local_accounts: false } }, 'test')
    const first = dumpState(a)
    expect(first.settings).toEqual({ quarantine_enabled: false, mcp_anonymous_profile: 'ops', activity_retention_days: null, call_approval_wait_ms: 1500, max_description_overlap: 0.8, agent_requests_per_second: null, agent_recorded_mib_per_hour: 8, break_glass_key: true, two_person_rule: 'all', local_accounts: false })
    const b = openDb(':memory:')
    await loadState(b, JSON.parse(JSON.stringify(first)), 'test')
    expect(dumpState(b)).toEqual(first)
    // the dumped token still authenticates
    expect(agentCaller(b, 'tg_at_demo_nightly_0000')).toMatchObject({ tier: 'agent', name: 'token:nightly' })
  })
})

describe('state load and stored secrets', () => {
  /** a database with one HTTP server (header secret, OAuth tokens) and one stdio server (env secret) */
  async function withSecrets() {
    const db = openDb(':memory:')
    await loadState(db, {
      version: 1,
      servers: [
        { name: 'wiki', transport: { url: 'https://wiki.example/mcp', secrets: ['Authorization'] }, tools: [] },
        { name: 'files', transport: { command: 'node', args: ['files.mjs'], secrets: ['TOKEN'] }, tools: [] },
      ],
    }, 'test')
    db.insert(serverSecrets).values([{ serverName: 'wiki', name: 'Authorization', value: sealSecret(db, 'Bearer w'), updatedAt: 1 }, { serverName: 'files', name: 'TOKEN', value: sealSecret(db, 't'), updatedAt: 1 }]).run()
    db.insert(serverOauth).values({ serverName: 'wiki', ...sealOauth(db, { tokens: { access_token: 'a' } }), updatedAt: 1 }).run()
    return db
  }
  const stored = (db: ReturnType<typeof openDb>) => ({
    secrets: db.select().from(serverSecrets).all().map((s) => `${s.serverName}.${s.name}`).sort(),
    oauth: db.select().from(serverOauth).all().map((o) => o.serverName),
  })
  const moved = (db: ReturnType<typeof openDb>, edit: (servers: { name: string; transport: Record<string, unknown> }[]) => void) => {
    const state = JSON.parse(JSON.stringify(dumpState(db)))
    edit(state.servers)
    return state
  }

  it('a server kept at its target keeps its secrets and OAuth state (a path on the same origin is the same target)', async () => {
    const db = await withSecrets()
    const r = await loadState(db, moved(db, (s) => (s[1].transport.url = 'https://wiki.example/v2/mcp')), 'test')
    expect(r.secretsDropped).toEqual([])
    expect(stored(db)).toEqual({ secrets: ['files.TOKEN', 'wiki.Authorization'], oauth: ['wiki'] })
  })

  it('another origin or another command line drops them, named in the result and the record', async () => {
    const db = await withSecrets()
    const r = await loadState(db, moved(db, (s) => { s[1].transport.url = 'https://evil.example/mcp'; s[0].transport.args = ['other.mjs'] }), 'test')
    expect(r.secretsDropped).toEqual([
      { server: 'files', from: 'node files.mjs', to: 'node other.mjs', secrets: ['TOKEN'], oauth: false },
      { server: 'wiki', from: 'https://wiki.example/mcp', to: 'https://evil.example/mcp', secrets: ['Authorization'], oauth: true },
    ])
    expect(stored(db)).toEqual({ secrets: [], oauth: [] })
    const record = db.select().from(activity).all().at(-1)!
    expect(record.data).toMatchObject({ secrets_dropped: r.secretsDropped })
  })

  it('keepSecrets keeps them for the new target, and says which', async () => {
    const db = await withSecrets()
    const r = await loadState(db, moved(db, (s) => (s[1].transport.url = 'http://wiki.example/mcp')), 'test', { keepSecrets: true })
    expect(r.secretsKept).toEqual([{ server: 'wiki', from: 'https://wiki.example/mcp', to: 'http://wiki.example/mcp', secrets: ['Authorization'], oauth: true }])
    expect(stored(db)).toEqual({ secrets: ['files.TOKEN', 'wiki.Authorization'], oauth: ['wiki'] })
  })
})

describe('the demo state', () => {
  it('produces every one of the 15 reason codes, and ready tools', async () => {
    const db = openDb(':memory:')
    await loadState(db, demo(), 'test')
    const seen = new Set<string>()
    const collect = (r: ReturnType<typeof check>) => r.tools.forEach((t) => seen.add(t.status === 'ready' ? 'ready' : t.reason))
    collect(check(db, operator, [
      'notes:read_note', 'notes:reed_note', 'notes:export_notes', 'notes:share_note', 'notes:purge_notes', 'notes:rebuild_index',
      'github:list_issues', 'legacy-ci:run_job', 'jira:create_ticket', 'slack:post_message', 'search:web_search', 'wiki:page',
    ]))
    collect(check(db, operator, ['billing:get_invoice'], { profile: 'ops' }))
    collect(check(db, operator, ['notes:read_note'], { pins: new Map([['notes:read_note', 'sha256/v1:' + '0'.repeat(64)]]) }))
    collect(check(db, operator, ['notes:write_note', 'notes:tag_note'], { policy: { read_only_only: true } }))
    expect([...seen].sort()).toEqual([...reasons, 'ready'].sort())
  })
})

describe('state file and operator accounts', () => {
  const PW = 'a long enough password'
  const by = { actor: 'test-admin' }
  const signIn = async (db: ReturnType<typeof openDb>, login: string) => {
    const r = await signInWithPassword(db, login, PW, { address: '10.7.0.1' })
    if (!('session' in r)) throw new Error(r.refused)
    return r
  }
  async function withPeople() {
    const db = openDb(':memory:')
    await loadState(db, demo(), 'test')
    await addOperator(db, { username: 'alice', name: 'Alice', email: 'alice@example.com', role: 'approver', password: PW }, by)
    await addOperator(db, { username: 'bob', name: 'Bob', role: 'viewer', password: PW }, by)
    db.update(operators).set({ oidcSubject: 'https://idp.example alice' }).where(eq(operators.username, 'alice')).run()
    await changeOperator(db, 'bob', { enabled: false }, by)
    return db
  }

  it('dumps accounts without secrets; dump | load round-trips them, and keeps the passwords, sessions and tokens of the accounts it keeps', async () => {
    const a = await withPeople()
    const alice = await signIn(a, 'alice')
    const token = await createPersonalToken(a, alice.principal, { name: 'ci' })
    const first = dumpState(a)
    expect(first.operators).toEqual([
      { username: 'alice', name: 'Alice', email: 'alice@example.com', role: 'approver', enabled: true, source: 'local', oidc_subject: 'https://idp.example alice' },
      { username: 'bob', name: 'Bob', email: null, role: 'viewer', enabled: false, source: 'local', oidc_subject: null },
    ])
    const text = JSON.stringify(first)
    for (const secret of [operatorByLogin(a, 'alice')!.passwordHash!, 'scrypt$', alice.principal.operatorId, token.token, alice.session.value, alice.session.key]) expect(text).not.toContain(secret)

    // another database: the same accounts, without passwords
    const b = openDb(':memory:')
    await loadState(b, JSON.parse(text), 'test')
    expect(dumpState(b)).toEqual(first)
    expect(operatorByLogin(b, 'alice')?.passwordHash).toBeNull()

    // back into the same database: the same people, their password, sessions and tokens still work
    await loadState(a, JSON.parse(text), 'test')
    expect(dumpState(a)).toEqual(first)
    expect(isValidSession(a, alice.session)).toBe(true)
    expect(personalTokenPrincipal(a, token.token).username).toBe('alice')
    await signIn(a, 'alice')

    // a file that leaves bob out and makes alice a viewer: bob is gone, alice's sessions and tokens end
    await loadState(a, { ...JSON.parse(text), operators: [{ ...first.operators![0], role: 'viewer' }] }, 'test')
    expect(operatorList(a).map((o) => `${o.username}:${o.role}`)).toEqual(['alice:viewer'])
    expect(isValidSession(a, alice.session)).toBe(false)
    expect(() => personalTokenPrincipal(a, token.token)).toThrow()
    // a file without accounts (from before named operators) leaves them as they are
    await loadState(a, demo(), 'test')
    expect(operatorList(a).map((o) => o.username)).toEqual(['alice'])
  })

  it('a first approval (two-person rule) of someone the file removes, disables or makes no approver is withdrawn, on the record; others stay', async () => {
    const db = await withPeople()
    await addOperator(db, { username: 'carol', name: 'Carol', role: 'approver', password: PW }, by)
    await addOperator(db, { username: 'dave', name: 'Dave', role: 'approver', password: PW }, by)
    await addOperator(db, { username: 'erin', name: 'Erin', role: 'approver', password: PW }, by)
    await updateSettings(db, { two_person_rule: 'all' }, by)
    const as = (u: string) => ({ actor: u, operatorId: operatorByLogin(db, u)!.id, auth: 'session' })
    const approve = (target: string, u: string) => twoPersonGate(db, { kind: 'tool', target, subject: 'pin', destructive: true } satisfies Approval, as(u))
    for (const [target, u] of [['notes:a', 'alice'], ['notes:b', 'carol'], ['notes:c', 'dave'], ['notes:d', 'erin']]) expect((await approve(target, u)).proceed).toBe(false)
    const file = dumpState(db)
    file.operators = file.operators!.filter((o) => o.username !== 'alice').map((o) =>
      o.username === 'carol' ? { ...o, enabled: false } : o.username === 'dave' ? { ...o, role: 'operator' as const } : o)
    await loadState(db, file, 'test')
    expect(Object.keys(firstApprovals(db, 'tool'))).toEqual(['notes:d'])
    expect(listActivity(db, { type: 'approval.withdrawn' }).map((r) => r.data as { target: string }).sort((x, y) => x.target.localeCompare(y.target))).toEqual([
      { target: 'notes:a', before: { kind: 'tool', subject: 'pin', by: 'alice' }, after: null, reason: 'state load removed alice' },
      { target: 'notes:b', before: { kind: 'tool', subject: 'pin', by: 'carol' }, after: null, reason: 'state load disabled carol' },
      { target: 'notes:c', before: { kind: 'tool', subject: 'pin', by: 'dave' }, after: null, reason: 'state load made dave operator' },
    ])
    // so a second approver's approval is a first again, not the completion of a gone person's
    expect(await approve('notes:a', 'erin')).toEqual({ proceed: false, firstOfTwo: { by: 'erin', target: 'notes:a' } })
  })

  it('applies an e-mail (and SSO subject) swap between two accounts in one load', async () => {
    const db = await withPeople()
    await addOperator(db, { username: 'carol', name: 'Carol', email: 'carol@example.com', role: 'viewer', password: PW }, by)
    db.update(operators).set({ oidcSubject: 'https://idp.example carol' }).where(eq(operators.username, 'carol')).run()
    const file = dumpState(db)
    const [alice, , carol] = file.operators!
    file.operators = [{ ...alice, email: carol.email, oidc_subject: carol.oidc_subject }, file.operators![1], { ...carol, email: alice.email, oidc_subject: alice.oidc_subject }]
    await loadState(db, file, 'test')
    expect(operatorList(db).map((o) => [o.username, o.email, o.oidcSubject])).toEqual([
      ['alice', 'carol@example.com', 'https://idp.example carol'], ['bob', null, null], ['carol', 'alice@example.com', 'https://idp.example alice'],
    ])
  })

  it('rejects bad accounts by JSON path, a secret among them, and a file that would leave no admin to sign in; nothing changes', async () => {
    const db = await withPeople()
    const before = JSON.stringify(dumpState(db))
    const bad = dumpState(db)
    bad.operators = [
      { ...bad.operators![0], role: 'superuser' as never },
      { ...bad.operators![1], username: 'Alice' },
      { username: 'carl', name: 'Carl', role: 'operator', password_hash: 'scrypt$1$2$3' } as never,
    ]
    bad.settings = { ...bad.settings, break_glass_key: false }
    const message = await loadState(db, bad, 'test').then(() => '', (e: Error) => e.message)
    expect(message).toContain('operators[0].role: a role is one of viewer')
    expect(message).toContain('operators[1].username: duplicate username "Alice"')
    expect(message).toContain('operators[2]: Unrecognized key: "password_hash"')
    expect(message).toContain('operators: with settings.break_glass_key false, name an enabled admin account')
    expect(JSON.stringify(dumpState(db))).toBe(before)
  })
})

