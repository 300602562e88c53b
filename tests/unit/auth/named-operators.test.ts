import { afterEach, describe, expect, it, vi } from 'vitest'
import { readFileSync } from 'node:fs'
import { and, eq } from 'drizzle-orm'
import { demoStateFile, freshDb, load } from '@/tests/helpers/db'
import { listActivity } from '@/db/queries/activity'
import { operators, settings, tools } from '@/db/schema'
import { ensureOperatorKey } from '@/lib/admin/operator-key'
import { addOperator, changeOperator, createPersonalToken, inviteOperator, acceptInvitation, revokePersonalToken } from '@/lib/admin/operators'
import { updateSettings } from '@/lib/admin/settings'
import { firstApprovals, twoPersonGate, type Approval } from '@/lib/approvals/two-person'
import { readSettings } from '@/db/queries/settings'
import { personalTokenPrincipal, restCredentials } from '@/lib/auth/caller'
import { endSession, isValidSession, listSessions, signInBreakGlass, signInWithPassword } from '@/lib/auth/operator-sessions'
import { MAX_FAILURES } from '@/lib/auth/sign-in-throttle'
import { contextOf, principalOf } from '@/lib/auth/accounts'
import { approveTool } from '@/lib/admin/tools'
import { addServer, requestRestart, setSecret } from '@/lib/admin/upstreams'
import { toolInventory } from '@/lib/catalog/inventory'
import { activityFilterFromSearch, activityPage } from '@/lib/dashboard/activity'
import { hashPassword, verifyPassword } from '@/lib/auth/passwords'

const KEY = 'tg_op_named_operators_unit_key_0123'
const PASSWORD = 'correct horse battery'
const admin = { actor: 'test-admin' }

async function setup() {
  const { db } = freshDb()
  await ensureOperatorKey(db, KEY)
  return db
}
const session = (r: Awaited<ReturnType<typeof signInWithPassword>>) => {
  if (!('session' in r)) throw new Error(`refused: ${r.refused}`)
  return r
}

describe('operator accounts and local passwords', () => {
  it('stores only a scrypt hash at current parameters; the right password verifies, others and malformed hashes never', async () => {
    const h = await hashPassword(PASSWORD)
    expect(h).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
    expect(h).not.toContain(PASSWORD)
    expect(await verifyPassword(PASSWORD, h)).toBe(true)
    expect(await verifyPassword('correct horse battery!', h)).toBe(false)
    expect(await verifyPassword(PASSWORD, null)).toBe(false)
    expect(await verifyPassword(PASSWORD, 'sha256$abc')).toBe(false)
    expect(await hashPassword(PASSWORD)).not.toBe(h) // salted
  })

  it('a person signs in as themselves with username or e-mail; the record names them and how', async () => {
    const db = await setup()
    await addOperator(db, { username: 'alice', name: 'Alice', email: 'alice@example.com', role: 'approver', password: PASSWORD }, admin)
    expect(JSON.stringify(db.select().from(operators).all())).not.toContain(PASSWORD)
    const byName = session(await signInWithPassword(db, 'alice', PASSWORD, { address: '10.9.0.1' }))
    expect(byName.principal).toMatchObject({ username: 'alice', role: 'approver', auth: 'session', actor: 'alice' })
    session(await signInWithPassword(db, 'Alice@Example.com', PASSWORD, { address: '10.9.0.1' }))
    const [rec] = listActivity(db, { type: 'operator.signed_in' })
    expect(rec).toMatchObject({ actor: 'alice', data: { method: 'password' } })
    const row = db.$client.prepare("select operator_id, auth from activity where type = 'operator.signed_in' limit 1").get()
    expect(row).toEqual({ operator_id: byName.principal.operatorId, auth: 'session' })
  })

  it('a wrong password and an unknown user are refused alike; refusals are recorded without the password', async () => {
    const db = await setup()
    await addOperator(db, { username: 'bob', name: 'Bob', role: 'viewer', password: PASSWORD }, admin)
    const wrong = await signInWithPassword(db, 'bob', 'not the password', { address: '10.9.1.1' })
    const nobody = await signInWithPassword(db, 'nobody', 'not the password', { address: '10.9.1.2' })
    expect(wrong).toEqual({ refused: 'Wrong username or password.', fix: expect.any(String) })
    expect(nobody).toEqual(wrong)
    const refused = listActivity(db, { type: 'operator.sign_in_refused' })
    expect(refused.map((r) => r.data)).toEqual(expect.arrayContaining([expect.objectContaining({ login: 'bob', reason: 'wrong_password', address: '10.9.1.1' })]))
    expect(JSON.stringify(refused)).not.toContain('not the password')
  })

  it('throttles per account (guesses from many addresses) and per address (guesses at many accounts)', async () => {
    const db = await setup()
    await addOperator(db, { username: 'carol', name: 'Carol', role: 'viewer', password: PASSWORD }, admin)
    await addOperator(db, { username: 'dave', name: 'Dave', role: 'viewer', password: PASSWORD }, admin)
    const t0 = 5_000_000
    for (let i = 0; i < MAX_FAILURES; i++) await signInWithPassword(db, 'carol', `guess ${i}`, { address: `10.8.0.${i}` }, t0 + i)
    // the right password, from a fresh address: the account waits
    expect(await signInWithPassword(db, 'carol', PASSWORD, { address: '10.8.1.1' }, t0 + 10)).toMatchObject({ refused: expect.stringMatching(/^Too many failed sign-ins for carol/) })
    expect(listActivity(db, { type: 'operator.sign_in_refused' })[0].data).toMatchObject({ reason: 'throttled', login: 'carol' })
    // dave from his own address is unaffected
    session(await signInWithPassword(db, 'dave', PASSWORD, { address: '10.8.2.2' }, t0 + 10))
    // one address guessing at many accounts waits too
    for (let i = 0; i < MAX_FAILURES; i++) await signInWithPassword(db, `user${i}`, 'guess', { address: '10.8.3.3' }, t0 + i)
    expect(await signInWithPassword(db, 'dave', PASSWORD, { address: '10.8.3.3' }, t0 + 20)).toHaveProperty('refused')
  })

  it('a disabled account cannot sign in, and disabling ends its sessions at once', async () => {
    const db = await setup()
    await addOperator(db, { username: 'erin', name: 'Erin', role: 'operator', password: PASSWORD }, admin)
    await addOperator(db, { username: 'root', name: 'Root', role: 'admin', password: PASSWORD }, admin)
    const s = session(await signInWithPassword(db, 'erin', PASSWORD, { address: '10.7.0.1' }))
    expect(isValidSession(db, s.session)).toBe(true)
    const r = await changeOperator(db, 'erin', { enabled: false }, admin)
    expect(r.sessions).toBe(1)
    expect(isValidSession(db, s.session)).toBe(false)
    expect(await signInWithPassword(db, 'erin', PASSWORD, { address: '10.7.0.2' })).toMatchObject({ refused: 'This account is disabled.' })
  })

  it('disabling an approver, or making them no approver, withdraws their first approvals (two-person rule), on the record', async () => {
    const db = await setup()
    await updateSettings(db, { two_person_rule: 'all' }, admin)
    for (const u of ['fay', 'gus', 'hal']) await addOperator(db, { username: u, name: u, role: 'approver', password: PASSWORD }, admin)
    const as = (u: string) => ({ actor: u, operatorId: db.select().from(operators).where(eq(operators.username, u)).get()!.id, auth: 'session' })
    const approve = (target: string, u: string) => twoPersonGate(db, { kind: 'tool', target, subject: 'pin', destructive: true } satisfies Approval, as(u))
    for (const [target, u] of [['notes:a', 'fay'], ['notes:b', 'gus'], ['notes:c', 'hal']]) expect((await approve(target, u)).proceed).toBe(false)
    await changeOperator(db, 'fay', { enabled: false }, admin)
    await changeOperator(db, 'gus', { role: 'operator' }, admin)
    await changeOperator(db, 'hal', { role: 'admin' }, admin) // still an approver: kept
    expect(Object.keys(firstApprovals(db, 'tool'))).toEqual(['notes:c'])
    expect(listActivity(db, { type: 'approval.withdrawn' }).map((r) => (r.data as { reason: string }).reason).sort()).toEqual(['test-admin disabled fay', 'test-admin made gus operator'])
  })

  it('nobody changes their own account, and the last enabled admin stays', async () => {
    const db = await setup()
    const root = await addOperator(db, { username: 'root', name: 'Root', role: 'admin', password: PASSWORD }, admin)
    const id = db.select().from(operators).where(eq(operators.username, root.operator.username)).get()!.id
    await expect(changeOperator(db, 'root', { role: 'viewer' }, { actor: 'root', operatorId: id })).rejects.toThrow(/your own/)
    await expect(changeOperator(db, 'root', { enabled: false }, admin)).rejects.toThrow(/last enabled admin/)
  })
})

describe('invitations', () => {
  it('work once, then are refused; expired ones are refused; the record names the admin and the new person', async () => {
    const db = await setup()
    const now = 10_000_000
    const inv = await inviteOperator(db, { username: 'frank', name: 'Frank', role: 'auditor' }, admin, now)
    expect(inv.path).toBe(`/invite/${inv.token}`)
    expect(inv.token).toMatch(/^tg_iv_/)
    expect(JSON.stringify(db.$client.prepare('select * from operator_invitations').all())).not.toContain(inv.token)
    const first = await acceptInvitation(db, inv.token, PASSWORD, { address: '10.6.0.1' }, now + 1000)
    expect(first).toMatchObject({ principal: { username: 'frank', role: 'auditor' } })
    expect(await acceptInvitation(db, inv.token, 'another password!', { address: '10.6.0.1' }, now + 2000)).toHaveProperty('refused')
    session(await signInWithPassword(db, 'frank', PASSWORD, { address: '10.6.0.1' }, now + 3000))
    const late = await inviteOperator(db, { username: 'gina', name: 'Gina', role: 'viewer' }, admin, now, 60_000)
    expect(await acceptInvitation(db, late.token, PASSWORD, { address: '10.6.0.1' }, now + 60_000)).toMatchObject({ refused: expect.stringContaining('expired') })
    expect(listActivity(db, { type: 'operator.invited' }).map((r) => r.actor)).toEqual(['test-admin', 'test-admin'])
    expect(listActivity(db, { type: 'operator.invitation_accepted' }).map((r) => r.actor)).toEqual(['frank'])
  })

  it('two tabs racing with one link: exactly one gets an account', async () => {
    const db = await setup()
    const inv = await inviteOperator(db, { username: 'hal', name: 'Hal', role: 'viewer' }, admin)
    const results = await Promise.all([acceptInvitation(db, inv.token, PASSWORD, {}), acceptInvitation(db, inv.token, 'other password 123', {})])
    expect(results.filter((r) => 'session' in r)).toHaveLength(1)
  })
})

describe('sessions per person, and the break-glass key', () => {
  it('a person sees and ends their own sessions; only an admin ends another person\'s', async () => {
    const db = await setup()
    await addOperator(db, { username: 'ivy', name: 'Ivy', role: 'approver', password: PASSWORD }, admin)
    await addOperator(db, { username: 'jon', name: 'Jon', role: 'operator', password: PASSWORD }, admin)
    await addOperator(db, { username: 'kim', name: 'Kim', role: 'admin', password: PASSWORD }, admin)
    const ivy = session(await signInWithPassword(db, 'ivy', PASSWORD, { address: '10.5.0.1' }))
    const jon = session(await signInWithPassword(db, 'jon', PASSWORD, { address: '10.5.0.2' }))
    const kim = session(await signInWithPassword(db, 'kim', PASSWORD, { address: '10.5.0.3' }))
    expect(listSessions(db, Date.now(), ivy.principal.operatorId).map((s) => s.username)).toEqual(['ivy'])
    expect(listSessions(db).map((s) => s.username).sort()).toEqual(['ivy', 'jon', 'kim'])
    const jonsId = listSessions(db, Date.now(), jon.principal.operatorId)[0].id
    await expect(endSession(db, ivy.principal, jonsId)).rejects.toThrow(/only an admin/)
    expect(isValidSession(db, jon.session)).toBe(true)
    await endSession(db, kim.principal, jonsId)
    expect(isValidSession(db, jon.session)).toBe(false)
    await endSession(db, ivy.principal, listSessions(db, Date.now(), ivy.principal.operatorId)[0].id)
    expect(isValidSession(db, ivy.session)).toBe(false)
    expect(listActivity(db, { type: 'operator.session_ended' }).map((r) => `${r.actor}→${(r.data as { target: string }).target}`)).toEqual(['ivy→ivy', 'kim→jon'])
    expect(isValidSession(db, kim.session)).toBe(true)
  })

  it('the break-glass key signs in as the bootstrap admin, on the record as break-glass; turned off, it opens nothing and its sessions end', async () => {
    const db = await setup()
    const r = await signInBreakGlass(db, KEY, { address: '10.4.0.1' })
    if (!('session' in r)) throw new Error(r.refused)
    expect(r.principal).toMatchObject({ username: 'admin', role: 'admin', auth: 'break-glass', actor: 'break-glass' })
    expect(listActivity(db, { type: 'operator.signed_in' })[0]).toMatchObject({ actor: 'break-glass', data: { method: 'break-glass' } })
    db.update(settings).set({ breakGlassKey: false }).run()
    expect(isValidSession(db, r.session)).toBe(false)
    expect(await signInBreakGlass(db, KEY, { address: '10.4.0.1' })).toMatchObject({ refused: expect.stringContaining('turned off') })
    expect(principalOf(db.select().from(operators).get()!, 'session').actor).toBe('admin')
  })
})

describe('every decision names its person', () => {
  it('an approval records the account and how they signed in; the inventory says "approved by"; Activity filters by person', async () => {
    const db = await setup()
    await load(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')))
    await addOperator(db, { username: 'alice', name: 'Alice', role: 'approver', password: PASSWORD }, admin)
    const alice = session(await signInWithPassword(db, 'alice', PASSWORD, { address: '10.3.0.1' })).principal
    const pin = db.select().from(tools).where(and(eq(tools.serverName, 'notes'), eq(tools.name, 'export_notes'))).get()!.hash!
    const r = await approveTool(db, 'notes:export_notes', contextOf(alice), { hash: pin })
    const row = db.$client.prepare('select actor, operator_id, auth from activity where id = ?').get(r.activityId)
    expect(row).toEqual({ actor: 'alice', operator_id: alice.operatorId, auth: 'session' })
    expect(toolInventory(db, 'notes').find((t) => t.name === 'export_notes')?.decided).toEqual({ by: 'alice', at: expect.any(String) })
    const mine = activityPage(db, activityFilterFromSearch({ person: 'alice' }).filter).items
    expect(mine.length).toBeGreaterThan(0)
    expect(new Set(mine.map((i) => i.actor))).toEqual(new Set(['alice']))
    expect(activityFilterFromSearch({ person: 'Not A Name!' }).problems).toEqual([expect.stringMatching(/^person: /)])
  })

  it('an upstream action names the person too, and a server added with its OAuth client is one request', async () => {
    const db = await setup()
    await addOperator(db, { username: 'alice', name: 'Alice', role: 'admin', password: PASSWORD }, admin)
    const alice = contextOf(session(await signInWithPassword(db, 'alice', PASSWORD, { address: '10.3.0.2' })).principal)
    const added = await addServer(db, { name: 'vault', transport: { url: 'https://vault.example.com/mcp' } }, alice, { clientId: 'toolgate' })
    const records = [added, added.oauthConfigured!, await setSecret(db, 'vault', 'X_TOKEN', 'value', alice), await requestRestart(db, 'vault', alice)]
    const row = db.$client.prepare('select type, request_id as requestId, actor, operator_id as operatorId, auth from activity where id = ?')
    expect(records.map((r) => row.get(r.activityId))).toEqual(['server.added', 'server.oauth_configured', 'server.secret_set', 'server.restart_requested']
      .map((type) => ({ type, requestId: expect.any(String), actor: 'alice', operatorId: alice.operatorId, auth: 'session' })))
    expect(added.oauthConfigured!.requestId).toBe(added.requestId)
  })
})

describe('personal access tokens', () => {
  const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n] ?? null })
  it('carry at most their person\'s role, are shown once and stored hashed, expire, are revoked at once, and count each use', async () => {
    const db = await setup()
    await addOperator(db, { username: 'lee', name: 'Lee', role: 'operator', password: PASSWORD }, admin)
    const lee = session(await signInWithPassword(db, 'lee', PASSWORD, { address: '10.2.0.1' })).principal
    await expect(createPersonalToken(db, lee, { name: 'too much', role: 'approver' })).rejects.toThrow(/at most your own role \(operator\)/)
    const now = Date.now()
    const t = await createPersonalToken(db, lee, { name: 'ci', role: 'viewer', days: 1 }, now)
    expect(t.token).toMatch(/^tg_pt_/)
    expect(JSON.stringify(db.$client.prepare('select * from personal_tokens').all())).not.toContain(t.token)
    // a viewer token of an operator: a read, not a check
    expect(restCredentials(db, headers({ authorization: `Bearer ${t.token}` }), 'view').caller).toEqual({ tier: 'operator', name: 'lee' })
    expect(() => restCredentials(db, headers({ 'x-api-key': t.token }), 'operate')).toThrow(/you need the operator or approver or admin role \(you are viewer\)/)
    // counted in the background: the request never waits for it
    await expect.poll(() => db.$client.prepare('select uses from personal_tokens').pluck().get(), { timeout: 10_000 }).toBe(2)
    expect(() => personalTokenPrincipal(db, t.token, now + 24 * 60 * 60 * 1000)).toThrow(/expired/)
    const other = await createPersonalToken(db, lee, { name: 'laptop' })
    await revokePersonalToken(db, lee, t.id)
    expect(() => restCredentials(db, headers({ 'x-api-key': t.token }), 'view')).toThrow(/revoked/)
    expect(listActivity(db, { type: 'personal_token.revoked' })[0]).toMatchObject({ actor: 'lee' })
    // disabling the person ends the rest at once
    await addOperator(db, { username: 'max', name: 'Max', role: 'admin', password: PASSWORD }, admin)
    await changeOperator(db, 'lee', { enabled: false }, admin)
    expect(() => restCredentials(db, headers({ 'x-api-key': other.token }), 'view')).toThrow(/invalid, expired or revoked/)
  })

  it('the break-glass key on REST is recorded as break-glass, and refused once turned off', async () => {
    const db = await setup()
    expect(restCredentials(db, headers({ 'x-api-key': KEY }), 'admin').caller).toEqual({ tier: 'operator', name: 'break-glass' })
    db.update(settings).set({ breakGlassKey: false }).run()
    expect(() => restCredentials(db, headers({ 'x-api-key': KEY }), 'view')).toThrow(/turned off/)
  })

  it('the key can only be turned off once an admin account exists', async () => {
    const db = await setup()
    await expect(updateSettings(db, { break_glass_key: false }, admin)).rejects.toThrow(/create an enabled admin account first/)
    await addOperator(db, { username: 'nia', name: 'Nia', role: 'admin', password: PASSWORD }, admin)
    expect((await updateSettings(db, { break_glass_key: false }, admin)).after.break_glass_key).toBe(false)
    // the rule is for turning it off: a later save that keeps it off (the Settings form sends every field) is not refused,
    // even with no admin account left (as a state file can leave it)
    db.update(operators).set({ enabled: false }).where(eq(operators.username, 'nia')).run()
    expect((await updateSettings(db, { break_glass_key: false, two_person_rule: 'all' }, admin)).after).toMatchObject({ break_glass_key: false, two_person_rule: 'all' })
    await expect(updateSettings(db, { two_person_rule: 'sometimes' }, admin)).rejects.toThrow(/two_person_rule: must be off, destructive or all/)
    expect(readSettings(db).twoPersonRule).toBe('all')
  })
})

describe('turning passwords off (local_accounts)', () => {
  afterEach(() => { vi.unstubAllEnvs() })
  const sso = () => {
    vi.stubEnv('TOOLGATE_OIDC_ISSUER', 'https://login.example.com')
    vi.stubEnv('TOOLGATE_OIDC_CLIENT_ID', 'toolgate')
  }

  it('needs single sign-on configured and the acting admin signed in through it; the CLI needs some such admin, whatever its own environment', async () => {
    const db = await setup()
    await addOperator(db, { username: 'ola', name: 'Ola', role: 'admin', password: PASSWORD }, admin)
    const ola = contextOf(session(await signInWithPassword(db, 'ola', PASSWORD, { address: '10.5.0.1' })).principal)
    vi.stubEnv('TOOLGATE_OIDC_ISSUER', '')
    await expect(updateSettings(db, { local_accounts: false }, ola)).rejects.toThrow(/^local_accounts: single sign-on is not configured/)
    await expect(updateSettings(db, { local_accounts: false }, { actor: 'cli:ops' })).rejects.toThrow(/^local_accounts: no enabled admin has signed in with single sign-on/)
    sso()
    await expect(updateSettings(db, { local_accounts: false }, ola)).rejects.toThrow(/^local_accounts: your account \(ola\) has not signed in with single sign-on/)
    await expect(updateSettings(db, { local_accounts: false }, { actor: 'cli:ops' })).rejects.toThrow(/^local_accounts: no enabled admin has signed in with single sign-on/)
    expect(readSettings(db).localAccounts).toBe(true)
    db.update(operators).set({ oidcSubject: 'https://login.example.com ola' }).where(eq(operators.username, 'ola')).run()
    expect((await updateSettings(db, { local_accounts: false }, ola)).after.local_accounts).toBe(false)
    expect(listActivity(db, { type: 'settings.changed' })[0]).toMatchObject({ actor: 'ola', data: { before: { local_accounts: true }, after: { local_accounts: false } } })
    await updateSettings(db, { local_accounts: true }, ola)
    // the CLI, without the server's TOOLGATE_OIDC_* environment, goes by the stored link
    vi.stubEnv('TOOLGATE_OIDC_ISSUER', '')
    expect((await updateSettings(db, { local_accounts: false }, { actor: 'cli:ops' })).after.local_accounts).toBe(false)
    // and back on, by anyone who may change settings
    expect((await updateSettings(db, { local_accounts: true }, { actor: 'cli:ops' })).after.local_accounts).toBe(true)
  })

  it('off: passwords and invitations are refused, saying so, password sessions end; the break-glass key still signs in', async () => {
    const db = await setup()
    await addOperator(db, { username: 'pia', name: 'Pia', role: 'approver', password: PASSWORD }, admin)
    const pia = session(await signInWithPassword(db, 'pia', PASSWORD, { address: '10.6.0.1' }))
    const invite = await inviteOperator(db, { username: 'quinn', name: 'Quinn', role: 'viewer' }, admin)
    db.update(settings).set({ localAccounts: false }).run()
    expect(isValidSession(db, pia.session)).toBe(false)
    expect(await signInWithPassword(db, 'pia', PASSWORD, { address: '10.6.0.1' })).toMatchObject({ refused: expect.stringContaining('local accounts are turned off') })
    expect(listActivity(db, { type: 'operator.sign_in_refused' })[0]).toMatchObject({ data: { reason: 'local_accounts_off', login: 'pia' } })
    expect(await acceptInvitation(db, invite.token, 'quinn picks a password', {})).toMatchObject({ refused: expect.stringContaining('local accounts are turned off') })
    expect(db.select().from(operators).where(eq(operators.username, 'quinn')).get()?.passwordHash).toBeNull()
    expect(await signInBreakGlass(db, KEY, { address: '10.6.0.2' })).toHaveProperty('session')
  })
})

