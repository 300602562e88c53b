import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serverConnections } from '@/db/schema'
import { listActivity } from '@/db/queries/activity'
import { startOAuthFixture, type OAuthFixture } from '@/tests/fixtures/oauth-upstream'
import { eventually, screenshot, signedIn, visit, startDashboard, type Dashboard } from './harness'

let oauth: OAuthFixture
let d: Dashboard
beforeAll(async () => {
  oauth = await startOAuthFixture()
  // the upstream runtime on, managing one Streamable HTTP server behind OAuth
  d = await startDashboard({ servers: [
    { name: 'guarded', trust: 'auto', transport: { url: oauth.url } },
    // an HTTP server with no OAuth at all (nothing listens there): no login can help it
    { name: 'plain', trust: 'auto', transport: { url: 'http://127.0.0.1:9/mcp' } },
  ] }, { TOOLGATE_RUNTIME: 'on' })
})
afterAll(async () => {
  await d?.stop()
  await oauth?.close()
})

const connection = () => d.db.select().from(serverConnections).where(eq(serverConnections.serverName, 'guarded')).get()?.state

describe('login from a preflight row', () => {
  it('runs the real OAuth flow against the fixture upstream and comes back to the check, which turns ready', async () => {
    await eventually(connection).toBe('pending_auth')
    const { page, context } = await signedIn(d)
    const host = new URL(d.server.url).host
    await visit(page, '/preflight?id=guarded:whoami')
    await page.getByRole('button', { name: 'Run preflight' }).click()
    const row = page.getByTestId('row-guarded:whoami')
    await eventually(() => row.getAttribute('data-reason')).toBe('oauth_required')
    const checkRequest = (await page.getByRole('link', { name: /^req_/ }).textContent())!

    // the authorization server approves at once and redirects to toolgate's callback, which returns here
    await row.getByRole('button', { name: 'Log in' }).click()
    await eventually(connection).toBe('ready')
    await page.waitForLoadState()
    await eventually(() => new URL(page.url()).pathname).toBe('/preflight')
    expect(new URL(page.url()).host).toBe(host) // back on the host the browser used, still signed in
    expect(new URL(page.url()).searchParams.get('id')).toBe('guarded:whoami')
    // the page follows the new connection and checks again by itself, saying the login landed
    await page.getByRole('status').filter({ hasText: 'Done: logged in to guarded' }).waitFor()
    expect(await page.getByTestId('row-guarded:whoami').getAttribute('data-status')).toBe('ready')
    expect(new URL(page.url()).searchParams.has('logged_in')).toBe(false) // a reload claims no login
    await screenshot(page, 'preflight-after-login')

    // on the record: the login was started from this check, and completed by the callback
    expect(listActivity(d.db, { type: 'server.login_started' }).map((r) => r.requestId)).toEqual([checkRequest])
    expect(listActivity(d.db, { type: 'server.login_completed' })).toHaveLength(1)

    // server pages offer a login only where it can help: again, once logged in; never to a server without OAuth
    await visit(page, '/servers/guarded')
    await page.getByRole('button', { name: 'Log in again' }).waitFor()
    await visit(page, '/servers/plain')
    await page.getByRole('button', { name: 'Restart' }).waitFor()
    expect(await page.getByRole('button', { name: /Log in/ }).count()).toBe(0)
    await context.close()
  })
})
