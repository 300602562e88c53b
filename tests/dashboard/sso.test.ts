import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import Provider from 'oidc-provider'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { operatorByLogin, operatorList, sessionsWithOperators } from '@/db/queries/operators'
import { readSettings } from '@/db/queries/settings'
import { changeOperator } from '@/lib/admin/operators'
import { freePort } from '@/tests/helpers/server'
import { captureAction, demoState, eventually, OPERATOR_KEY, replay, sessionHeaders, signedIn, startDashboard, visit, type Dashboard } from './harness'

// A real, certified OpenID provider (oidc-provider) on loopback; its people and their claims:
const people: Record<string, Record<string, unknown>> = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Approver', groups: ['tg-approvers'] },
  bob: { email: 'bob@example.com', email_verified: true, name: 'Bob Nobody', groups: ['marketing'] },
  mallory: { email: 'mallory@other.org', email_verified: true, name: 'Mallory', groups: ['tg-admins'] },
  carol: { email: 'carol@example.com', email_verified: true, name: 'Carol Approver', groups: ['tg-approvers'] },
  dave: { email: 'dave@example.com', email_verified: true, name: 'Dave Approver', groups: ['tg-approvers'] },
  erin: { email: 'erin@example.com', email_verified: true, name: 'Erin Admin', groups: ['tg-admins'] },
  // the team of three
  frank: { email: 'frank@example.com', email_verified: true, name: 'Frank Admin', groups: ['tg-admins'] },
  grace: { email: 'grace@example.com', email_verified: true, name: 'Grace Approver', groups: ['tg-approvers'] },
  heidi: { email: 'heidi@example.com', email_verified: true, name: 'Heidi Auditor', groups: ['tg-auditors'] },
}

let d: Dashboard
let idp: Server
let idpPort: number
/** The provider's signing key (given to it, so that a test can sign an ID token as the provider would). */
let signingKey: KeyObject
/** Set: the provider's token endpoint answers with an ID token whose claims this changes, signed again with the provider's key. */
let alterIdToken: ((claims: Record<string, unknown>) => Record<string, unknown>) | null = null
/** Set: the provider stops listening as it sends the browser back to toolgate (its answer still arrives). */
let goneOnceSentBack = false

function resigned(idToken: string, alter: (claims: Record<string, unknown>) => Record<string, unknown>): string {
  const [header, payload] = idToken.split('.')
  const claims = Buffer.from(JSON.stringify(alter(JSON.parse(Buffer.from(payload, 'base64url').toString())))).toString('base64url')
  return `${header}.${claims}.${sign('sha256', Buffer.from(`${header}.${claims}`), signingKey).toString('base64url')}` // RS256
}

const idpOrigin = () => `http://127.0.0.1:${idpPort}`
const idpUp = () => new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve))
/** The provider off the network: its port refuses connections, and open ones are cut. */
const idpDown = () => new Promise<void>((resolve) => { idp.close(() => resolve()); idp.closeAllConnections() })

beforeAll(async () => {
  idpPort = await freePort()
  const issuer = `http://127.0.0.1:${idpPort}`
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 })
  signingKey = keys.privateKey
  d = await startDashboard(demoState(), {
    TOOLGATE_OIDC_ISSUER: issuer, TOOLGATE_OIDC_CLIENT_ID: 'toolgate', TOOLGATE_OIDC_CLIENT_SECRET: 'a-client-secret-for-the-test-0123456789',
    TOOLGATE_OIDC_NAME: 'Test IdP', TOOLGATE_OIDC_SCOPES: 'openid email profile groups',
    TOOLGATE_OIDC_ALLOWED_DOMAINS: 'example.com', TOOLGATE_OIDC_ROLES: 'tg-approvers=approver,tg-admins=admin,tg-auditors=auditor',
  })
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'toolgate', client_secret: 'a-client-secret-for-the-test-0123456789', redirect_uris: [`${d.server.url}/api/auth/oidc/callback`], response_types: ['code'], grant_types: ['authorization_code'] }],
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...people[id] }) }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    jwks: { keys: [{ ...keys.privateKey.export({ format: 'jwk' }), kid: 'test-signing-key', alg: 'RS256', use: 'sig' }] },
  })
  provider.use(async (ctx: { oidc?: { route: string }; body: unknown; response: { get: (h: string) => string | undefined } }, next: () => Promise<void>) => {
    await next()
    const body = ctx.body as { id_token?: string } | undefined
    if (ctx.oidc?.route === 'token' && alterIdToken && body?.id_token) ctx.body = { ...body, id_token: resigned(body.id_token, alterIdToken) }
    if (goneOnceSentBack && ctx.response.get('location')?.startsWith(`${d.server.url}/api/auth/oidc/callback`)) {
      goneOnceSentBack = false
      idp.close() // new connections are refused, idle ones closed; this answer is still sent
    }
  })
  idp = createServer(provider.callback())
  await idpUp()
}, 120_000)
afterAll(async () => {
  await d?.stop()
  await new Promise((resolve) => (idp ? idp.close(resolve) : resolve(undefined)))
})

/** The provider's dev login and consent pages, as a person fills them in. */
async function atProvider(page: Page, login: string) {
  await page.locator('input[name=login]').fill(login, { timeout: 20_000 })
  await page.locator('input[name=password]').fill('any password')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click({ timeout: 20_000 })
}

/** A fresh browser on the sign-in page. */
async function onSignInPage() {
  const context = await d.browser.newContext({ baseURL: d.server.url })
  const page = await context.newPage()
  await page.goto('/login')
  return { context, page }
}

/** The sign-in button, then the provider's pages as `login`. */
async function throughProvider(page: Page, login: string) {
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
  await atProvider(page, login)
}

const refusals = () => listActivity(d.db, { type: 'operator.sign_in_refused' }) as { data: { sso?: string; login?: string; detail?: string } }[]
const counts = () => ({ operators: operatorList(d.db).length, sessions: sessionsWithOperators(d.db, Date.now()).length, refused: refusals().length })

/** A refused sign-in changed nothing: no account, no session (nor its cookie), one refusal on the record; the page says why. */
async function expectRefused(page: Page, before: ReturnType<typeof counts>, code: string, says: string) {
  await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.has('sso_error'), { timeout: 30_000 })
  expect(new URL(page.url()).searchParams.get('sso_error')).toBe(code)
  await expect(page.getByRole('alert').filter({ hasText: 'Why:' }).textContent()).resolves.toContain(says)
  expect(counts()).toEqual({ ...before, refused: before.refused + 1 })
  expect(refusals()[0].data.sso).toBe(code)
  expect(await page.context().cookies()).not.toContainEqual(expect.objectContaining({ name: 'toolgate_session' }))
}

describe('single sign-on with OpenID Connect, in Chromium against a real provider', () => {
  // first: toolgate finds the provider's metadata on the first sign-in, and keeps it once found
  it('refuses to start while the provider cannot be reached, says so, and works once it is back', async () => {
    const { context, page } = await onSignInPage()
    const before = counts()
    await idpDown()
    try {
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
      await expectRefused(page, before, 'unavailable', 'could not be reached')
      expect(refusals()[0].data.detail).toMatch(/ECONNREFUSED|fetch failed/)
    } finally {
      await idpUp()
    }
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
    await page.locator('input[name=login]').waitFor({ timeout: 30_000 }) // at the provider's sign-in now
    await context.close()
  }, 120_000)

  it('signs a mapped person in from the button: a new account with the mapped role, on the record with auth oidc', async () => {
    const { context, page } = await onSignInPage()
    await throughProvider(page, 'alice')
    await page.waitForURL((u) => u.pathname === '/', { timeout: 30_000 })
    await eventually(() => page.locator('[data-person]').getAttribute('data-person')).toBe('alice')
    expect(page.url()).not.toContain('tg_sk_') // the key left the address bar
    const alice = operatorByLogin(d.db, 'alice')!
    expect({ role: alice.role, source: alice.source, email: alice.email, subject: alice.oidcSubject }).toEqual({ role: 'approver', source: 'oidc', email: 'alice@example.com', subject: `${idpOrigin()} alice` })
    const signedIn = listActivity(d.db, { type: 'operator.signed_in' })[0] as unknown as { actor: string; auth: string; data: { method: string } }
    expect({ actor: signedIn.actor, auth: signedIn.auth, method: signedIn.data.method }).toEqual({ actor: 'alice', auth: 'oidc', method: 'oidc' })
    expect(listActivity(d.db, { type: 'operator.created' })[0].actor).toBe('alice')
    await context.close()
  }, 120_000)

  for (const param of ['state', 'nonce'] as const) {
    it(`refuses an answer whose ${param} was tampered with, and changes nothing`, async () => {
      const context = await d.browser.newContext({ baseURL: d.server.url })
      const page = await context.newPage()
      // the browser's own start (its flow cookie lands in this context); the way to the provider, altered
      const start = await context.request.get('/api/auth/oidc/start', { maxRedirects: 0 })
      const to = new URL(start.headers().location)
      to.searchParams.set(param, 'tampered-value-0123456789abcdef')
      const before = counts()
      await page.goto(to.href)
      await atProvider(page, 'alice')
      await expectRefused(page, before, 'check', 'failed toolgate\'s checks')
      await context.close()
    }, 120_000)
  }

  it('refuses an ID token from another issuer, for another client, or expired — validly signed otherwise — and changes nothing', async () => {
    const cases = [
      { code: 'issuer', claim: 'iss', says: 'issued by another identity provider', alter: (c: Record<string, unknown>) => ({ ...c, iss: 'https://another-provider.example' }) },
      { code: 'audience', claim: 'aud', says: 'issued to another application', alter: (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' }) },
      { code: 'expired', claim: 'exp', says: 'had expired', alter: (c: Record<string, unknown>) => ({ ...c, exp: Number(c.iat) - 600 }) },
    ]
    try {
      for (const { code, claim, says, alter } of cases) {
        alterIdToken = alter
        const { context, page } = await onSignInPage()
        const before = counts()
        await throughProvider(page, 'carol')
        await expectRefused(page, before, code, says)
        expect(refusals()[0].data.detail).toContain(`"${claim}"`)
        expect(operatorByLogin(d.db, 'carol')).toBeUndefined()
        await context.close()
      }
      // the same token signed again unchanged passes: each refusal was its claim's
      alterIdToken = (c) => c
      const { context, page } = await onSignInPage()
      await throughProvider(page, 'carol')
      await page.waitForURL((u) => u.pathname === '/', { timeout: 30_000 })
      expect(operatorByLogin(d.db, 'carol')?.role).toBe('approver')
      await context.close()
    } finally {
      alterIdToken = null
    }
  }, 240_000)

  it('refuses when the provider goes away before the code is exchanged, saying it could not be reached, and changes nothing', async () => {
    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    goneOnceSentBack = true // the provider answers the browser, and is gone once it has sent it back to toolgate, which then asks it for the tokens
    await page.goto('/login')
    const before = counts()
    try {
      await throughProvider(page, 'dave')
      await expectRefused(page, before, 'unavailable', 'could not be reached')
      expect(refusals()[0].data.detail).toContain('fetch failed')
      expect(operatorByLogin(d.db, 'dave')).toBeUndefined()
    } finally {
      goneOnceSentBack = false
      if (!idp.listening) await idpUp()
    }
    await context.close()
  }, 120_000)

  it('refuses an identity that maps to no account, and one outside the allowed domains, saying why', async () => {
    for (const [who, code, text] of [['bob', 'unmapped', 'not mapped to a toolgate account'], ['mallory', 'domain', 'e-mail domain is not one']] as const) {
      const { context, page } = await onSignInPage()
      const before = counts()
      await throughProvider(page, who)
      await expectRefused(page, before, code, text)
      expect(operatorByLogin(d.db, who)).toBeUndefined()
      expect(refusals()[0].data.login).toBe(people[who].email)
      await context.close()
    }
  }, 120_000)

  it('a disabled account cannot sign in through the provider', async () => {
    await changeOperator(d.db, 'alice', { enabled: false }, { actor: 'test-admin' })
    const { context, page } = await onSignInPage()
    const before = counts()
    await throughProvider(page, 'alice')
    await expectRefused(page, before, 'disabled', 'account is disabled')
    await context.close()
  }, 120_000)

  it('passwords are turned off only by an admin who signed in through the provider; then sign-in offers single sign-on and the break-glass key', async () => {
    // the break-glass admin never signed in through the provider: refused, nothing changed
    const glass = await signedIn(d)
    await visit(glass.page, '/settings')
    const form = glass.page.getByRole('form', { name: 'Proxy settings' })
    await form.getByRole('checkbox', { name: /Passwords/ }).uncheck()
    await form.getByRole('button', { name: 'Save settings' }).click()
    await eventually(() => form.getByRole('alert').textContent()).toContain('local_accounts: your account (admin) has not signed in with single sign-on')
    expect(readSettings(d.db).localAccounts).toBe(true)

    const { context, page } = await onSignInPage()
    await throughProvider(page, 'erin')
    await page.waitForURL((u) => u.pathname === '/', { timeout: 30_000 })
    await visit(page, '/settings')
    const hers = page.getByRole('form', { name: 'Proxy settings' })
    await hers.getByRole('checkbox', { name: /Passwords/ }).uncheck()
    await hers.getByRole('button', { name: 'Save settings' }).click()
    await eventually(() => hers.getByRole('status').textContent()).toContain('Saved and recorded.')
    expect(readSettings(d.db).localAccounts).toBe(false)
    expect(listActivity(d.db, { type: 'settings.changed' })[0]).toMatchObject({ actor: 'erin', auth: 'oidc', data: { after: { local_accounts: false } } })

    const { context: fresh, page: login } = await onSignInPage()
    await login.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor()
    expect(await login.getByRole('form', { name: 'Sign in with your account' }).count()).toBe(0)
    await login.getByLabel('Break-glass key', { exact: true }).fill(OPERATOR_KEY)
    await login.getByRole('button', { name: 'Use the break-glass key' }).click()
    await login.waitForURL((u) => u.pathname === '/', { timeout: 20_000 })
    for (const c of [glass.context, context, fresh]) await c.close()
  }, 180_000)
})

describe('a team of three, each signed in through the provider, fixes a blocked agent together', () => {
  const NIGHTLY = 'tg_at_demo_nightly_0000'
  const needs = ['billing:get_invoice', 'notes:export_notes']
  const preflight = async () => {
    const res = await fetch(`${d.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${NIGHTLY}` },
      body: JSON.stringify({ tools: needs.map((id) => ({ id })) }),
    })
    return (await res.json() as { data: { verdict: string; tools: { id: string; status: string; reason?: string }[] } }).data
  }
  const signIn = async (login: string) => {
    const { context, page } = await onSignInPage()
    await throughProvider(page, login)
    await page.waitForURL((u) => u.pathname === '/', { timeout: 30_000 })
    await eventually(() => page.locator('[data-person]').getAttribute('data-person')).toBe(login)
    return { context, page, session: await sessionHeaders(context, page) }
  }

  it('the admin widens the profile, the approver approves, the auditor reads who did what; nobody does more than their role allows', async () => {
    // the agent is blocked: one tool outside its profile, one waiting for approval
    const before = await preflight()
    expect(before.verdict).not.toBe('ready')
    expect(before.tools.map((t) => t.status)).not.toContain('ready')

    const frank = await signIn('frank')
    const grace = await signIn('grace')
    const heidi = await signIn('heidi')
    expect(['frank', 'grace', 'heidi'].map((l) => operatorByLogin(d.db, l)?.role)).toEqual(['admin', 'approver', 'auditor'])

    // the auditor and the approver are offered no profile edit; the auditor no approval either
    for (const { page } of [grace, heidi]) {
      await visit(page, '/tokens')
      await page.getByTestId('profile-ops').waitFor()
      expect(await page.getByRole('button', { name: 'Save servers of profile ops' }).count()).toBe(0)
    }
    await visit(heidi.page, '/servers/notes')
    await heidi.page.getByTestId('tool-notes:export_notes').waitFor()
    expect(await heidi.page.getByRole('button', { name: /Review & approve|Block/ }).count()).toBe(0)

    // the admin's part: billing into profile ops
    await visit(frank.page, '/tokens#profile-ops')
    const ops = frank.page.getByTestId('profile-ops')
    await frank.page.getByRole('group', { name: 'Servers in ops' }).getByLabel('billing').check()
    const profileSave = captureAction(frank.page)
    await frank.page.getByRole('button', { name: 'Save servers of profile ops' }).click()
    const profileReq = await profileSave
    await eventually(async () => (await ops.getByRole('status').textContent()) ?? '').toMatch(/^Saved: ops reaches .*billing/)

    // the approver's part: the definition export_notes waits on
    await visit(grace.page, '/servers/notes')
    const approveSave = captureAction(grace.page)
    await grace.page.getByTestId('tool-notes:export_notes').getByRole('button', { name: 'Review & approve' }).click()
    await grace.page.getByRole('button', { name: 'Approve this definition' }).click()
    const approveReq = await approveSave
    await eventually(async () => (await preflight()).verdict).toBe('ready')
    expect((await preflight()).tools.map((t) => t.status)).toEqual(['ready', 'ready'])

    // the same actions sent as someone whose role does not allow them: refused, naming the role, nothing recorded
    const recorded = listActivity(d.db, { limit: 100_000 }).length
    const asGrace = await replay(profileReq, { session: grace.session })
    expect(asGrace.text).toContain('you need the admin role (you are approver)')
    const asHeidi = await replay(approveReq, { session: heidi.session })
    expect(asHeidi.text).toContain('you need the approver or admin role (you are auditor)')
    // exporting the log is the auditor's and the admin's, not the approver's
    const exportAs = async (session: Record<string, string>) => fetch(`${d.server.url}/activity/export?format=csv`, { headers: session })
    expect((await exportAs(grace.session)).status).toBe(403)
    expect(listActivity(d.db, { limit: 100_000 }).length).toBe(recorded)

    // the auditor's part: the log, exported, says who did what and how each proved who they were
    const csv = await exportAs(heidi.session)
    expect(csv.status).toBe(200)
    const [header, ...lines] = (await csv.text()).trim().split('\r\n').map((l) => l.split(','))
    const rows = lines.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i]])))
    const by = (type: string) => rows.filter((r) => r.type === type).map((r) => `${r.actor}/${r.auth}`)
    expect(by('profile.updated')).toEqual(['frank/oidc'])
    expect(by('tool.approved')).toEqual(['grace/oidc'])
    expect(by('operator.signed_in')).toEqual(expect.arrayContaining(['frank/oidc', 'grace/oidc', 'heidi/oidc']))
    // and on the page, each change under its person's name
    await visit(heidi.page, '/activity')
    const actorOf = (type: string) => heidi.page.locator(`[data-testid=activity-record][data-type="${type}"]`).first().getAttribute('data-actor')
    await eventually(() => actorOf('profile.updated')).toBe('frank')
    expect(await actorOf('tool.approved')).toBe('grace')
    for (const c of [frank, grace, heidi]) await c.context.close()
  }, 240_000)
})
