import { createServer, type Server } from 'node:http'
import Provider from 'oidc-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { operatorByLogin, operatorList } from '@/db/queries/operators'
import { changeOperator } from '@/lib/admin/operators'
import { freePort } from '@/tests/helpers/server'
import { demoState, eventually, startDashboard, type Dashboard } from './harness'

// A real, certified OpenID provider (oidc-provider) on loopback; its people and their claims:
const people: Record<string, Record<string, unknown>> = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Approver', groups: ['tg-approvers'] },
  bob: { email: 'bob@example.com', email_verified: true, name: 'Bob Nobody', groups: ['marketing'] },
  mallory: { email: 'mallory@other.org', email_verified: true, name: 'Mallory', groups: ['tg-admins'] },
}

let d: Dashboard
let idp: Server
beforeAll(async () => {
  const idpPort = await freePort()
  const issuer = `http://127.0.0.1:${idpPort}`
  d = await startDashboard(demoState(), {
    TOOLGATE_OIDC_ISSUER: issuer, TOOLGATE_OIDC_CLIENT_ID: 'toolgate', TOOLGATE_OIDC_CLIENT_SECRET: 'a-client-secret-for-the-test-0123456789',
    TOOLGATE_OIDC_NAME: 'Test IdP', TOOLGATE_OIDC_SCOPES: 'openid email profile groups',
    TOOLGATE_OIDC_ALLOWED_DOMAINS: 'example.com', TOOLGATE_OIDC_ROLES: 'tg-approvers=approver,tg-admins=admin',
  })
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'toolgate', client_secret: 'a-client-secret-for-the-test-0123456789', redirect_uris: [`${d.server.url}/api/auth/oidc/callback`], response_types: ['code'], grant_types: ['authorization_code'] }],
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...people[id] }) }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
  })
  idp = createServer(provider.callback())
  await new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve))
}, 120_000)
afterAll(async () => {
  await d?.stop()
  await new Promise((resolve) => (idp ? idp.close(resolve) : resolve(undefined)))
})

/** The provider's dev login and consent pages, as a person fills them in. */
async function atProvider(page: import('playwright-core').Page, login: string) {
  await page.locator('input[name=login]').fill(login, { timeout: 20_000 })
  await page.locator('input[name=password]').fill('any password')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click({ timeout: 20_000 })
}

const refusals = () => listActivity(d.db, { type: 'operator.sign_in_refused' }) as { data: { sso?: string; login?: string } }[]

describe('single sign-on with OpenID Connect, in Chromium against a real provider', () => {
  it('signs a mapped person in from the button: a new account with the mapped role, on the record with auth oidc', async () => {
    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    await page.goto('/login')
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
    await atProvider(page, 'alice')
    await page.waitForURL((u) => u.pathname === '/', { timeout: 30_000 })
    await eventually(() => page.locator('[data-person]').getAttribute('data-person')).toBe('alice')
    expect(page.url()).not.toContain('tg_sk_') // the key left the address bar
    const alice = operatorByLogin(d.db, 'alice')!
    expect({ role: alice.role, source: alice.source, email: alice.email, subject: alice.oidcSubject }).toEqual({ role: 'approver', source: 'oidc', email: 'alice@example.com', subject: `http://127.0.0.1:${new URL((await idpUrl())).port} alice` })
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
      const before = { operators: operatorList(d.db).length, refused: refusals().length }
      await page.goto(to.href)
      await atProvider(page, 'alice')
      await page.waitForURL((u) => u.pathname === '/login', { timeout: 30_000 })
      expect(new URL(page.url()).searchParams.get('sso_error')).toBe('check')
      await expect(page.getByRole('alert').filter({ hasText: 'Why:' }).textContent()).resolves.toContain('failed toolgate\'s checks')
      expect(operatorList(d.db).length).toBe(before.operators)
      expect(refusals().length).toBe(before.refused + 1)
      expect(refusals()[0].data.sso).toBe('check')
      expect(await context.cookies()).not.toContainEqual(expect.objectContaining({ name: 'toolgate_session' }))
      await context.close()
    }, 120_000)
  }

  it('refuses an identity that maps to no account, and one outside the allowed domains, saying why', async () => {
    for (const [who, code, text] of [['bob', 'unmapped', 'not mapped to a toolgate account'], ['mallory', 'domain', 'e-mail domain is not one']] as const) {
      const context = await d.browser.newContext({ baseURL: d.server.url })
      const page = await context.newPage()
      await page.goto('/login')
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
      await atProvider(page, who)
      await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.has('sso_error'), { timeout: 30_000 })
      await expect(page.getByRole('alert').filter({ hasText: 'Why:' }).textContent()).resolves.toContain(text)
      expect(operatorByLogin(d.db, who)).toBeUndefined()
      expect(refusals()[0].data).toMatchObject({ sso: code, login: people[who].email })
      await context.close()
    }
  }, 120_000)

  it('a disabled account cannot sign in through the provider', async () => {
    await changeOperator(d.db, 'alice', { enabled: false }, { actor: 'test-admin' })
    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    await page.goto('/login')
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
    await atProvider(page, 'alice')
    await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.has('sso_error'), { timeout: 30_000 })
    await expect(page.getByRole('alert').filter({ hasText: 'Why:' }).textContent()).resolves.toContain('account is disabled')
    expect(refusals()[0].data.sso).toBe('disabled')
    await context.close()
  }, 120_000)
})

async function idpUrl(): Promise<string> {
  const a = idp.address() as import('node:net').AddressInfo
  return `http://127.0.0.1:${a.port}`
}
