import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentTokens, toolApprovals, tools } from '@/db/schema'
import { listActivity } from '@/db/queries/activity'
import { rotateOperatorKey } from '@/lib/admin/operator-key'
import { captureAction, OPERATOR_KEY, replay, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

const pages = ['/', '/preflight', '/activity', '/activity/req_anything', '/servers', '/servers/notes', '/tokens', '/settings']
const approval = (tool: string) => d.db.select().from(toolApprovals).where(eq(toolApprovals.toolName, tool)).get()
const pin = (server: string, tool: string) => d.db.select().from(tools).where(and(eq(tools.serverName, server), eq(tools.name, tool))).get()!.hash!

describe('sign-in and the session', () => {
  it('signs in with the operator key, refuses an agent token and a wrong key, and sets a strict HttpOnly cookie', async () => {
    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    await page.goto('/login')
    for (const [key, message] of [['tg_at_demo_nightly_0000', 'agent tokens cannot open the dashboard'], ['tg_op_wrong', 'not the break-glass key']]) {
      await page.getByLabel('Break-glass key', { exact: true }).fill(key)
      await page.getByRole('button', { name: 'Use the break-glass key' }).click()
      await eventually(() => page.getByRole('alert').filter({ hasText: 'Why:' }).textContent()).toContain(message)
      expect(new URL(page.url()).pathname).toBe('/login')
    }
    expect(await context.cookies()).toEqual([])
    await page.getByLabel('Break-glass key', { exact: true }).fill(OPERATOR_KEY)
    await page.getByRole('button', { name: 'Use the break-glass key' }).click()
    await page.waitForURL((u) => u.pathname === '/')
    const [cookie] = await context.cookies()
    expect(cookie).toMatchObject({ name: 'toolgate_session', httpOnly: true, sameSite: 'Strict', path: '/' })
    expect(listActivity(d.db, { type: 'operator.signed_in' }).length).toBe(1)
    await context.close()
  })

  it('each sign-in attempt\'s error replaces the last, whichever form it came from; the sign-in page asks about a session only when it holds a key', async () => {
    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()) })
    const probes: number[] = []
    page.on('response', (r) => { if (new URL(r.url()).pathname === '/api/dashboard/session') probes.push(r.status()) })
    await visit(page, '/activity')
    expect(new URL(page.url()).pathname).toBe('/login')
    const shown = () => page.getByRole('alert').filter({ hasText: 'Why:' }).allTextContents()
    const wrongKey = async () => {
      await page.getByLabel('Break-glass key', { exact: true }).fill('tg_op_wrong')
      await page.getByRole('button', { name: 'Use the break-glass key' }).click()
      await eventually(shown).toEqual([expect.stringContaining('not the break-glass key')])
    }
    await wrongKey()
    await page.getByLabel('Username or e-mail').fill('nobody')
    await page.getByLabel('Password', { exact: true }).fill('not the password')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await eventually(shown).toEqual([expect.stringContaining('Wrong username or password.')])
    await wrongKey()
    await page.getByLabel('Break-glass key', { exact: true }).fill(OPERATOR_KEY)
    await page.getByRole('button', { name: 'Use the break-glass key' }).click()
    await page.waitForURL((u) => u.pathname === '/activity')
    // no key, no session to find: the signed-out sign-in page never asked (it would only have logged a 401)
    expect(probes).toEqual([])
    // with the key, it asks, and a signed-in browser is sent straight on
    await page.goto('/login')
    await page.waitForURL((u) => u.pathname === '/')
    expect(probes).toEqual([204])
    for (const path of ['/', '/activity', '/tokens', '/preflight']) await visit(page, path)
    expect(errors).toEqual([])
    await context.close()

    // a key whose session is gone is asked about once, then dropped
    const stale = await d.browser.newContext({ baseURL: d.server.url })
    const again = await stale.newPage()
    const asked: number[] = []
    again.on('response', (r) => { if (new URL(r.url()).pathname === '/api/dashboard/session') asked.push(r.status()) })
    await again.goto('/login')
    await again.evaluate(() => localStorage.setItem('toolgate.session-key', 'tg_sk_gone_long_ago'))
    await again.reload()
    await eventually(() => again.evaluate(() => localStorage.getItem('toolgate.session-key'))).toBeNull()
    expect(asked).toEqual([401])
    await again.reload()
    await again.getByRole('button', { name: 'Use the break-glass key' }).waitFor()
    expect(asked).toEqual([401])
    await stale.close()
  })

  it('a signed-out browser reaches no page — not even with a forged cookie that gets past the proxy', async () => {
    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    for (const path of pages) {
      await visit(page, path)
      expect(new URL(page.url()).pathname, path).toBe('/login')
    }
    await context.addCookies([{ name: 'toolgate_session', value: `${Date.now() + 3_600_000}.${'A'.repeat(43)}`, url: d.server.url }])
    for (const path of pages) {
      await visit(page, path)
      expect(new URL(page.url()).pathname, path).toBe('/login')
      expect(new URL(page.url()).searchParams.get('next'), path).toBe(path)
    }
    const api = await fetch(`${d.server.url}/api/dashboard/activity/stream?after=0`)
    expect(api.status).toBe(401)
    await context.close()
  })

  it('server actions refuse a caller without a session and change nothing; the same request with the session works', async () => {
    const { context, page } = await signedIn(d)
    await visit(page, '/servers/notes')
    const captured = captureAction(page)
    await page.getByTestId('tool-notes:export_notes').getByRole('button', { name: 'Review & approve' }).click()
    await page.getByRole('button', { name: 'Approve this definition' }).click()
    const req = await captured
    await eventually(() => approval('export_notes')?.status).toBe('approved')
    const session = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')

    // the same action, now for another pending tool, replayed without the cookie
    // (the approval carries the pin the operator was shown: swap that too)
    const other = (req.postData() ?? '').replaceAll('notes:export_notes', 'docs:lookup').replace(pin('notes', 'export_notes'), pin('docs', 'lookup'))
    expect(other).toContain(pin('docs', 'lookup'))
    expect(other).toContain('docs:lookup')
    const before = listActivity(d.db).length
    // no cookie at all: the action's own check refuses it before anything runs
    expect((await replay(req, { body: other })).text).toContain('You are not signed in')
    // a forged session value is refused the same way
    const forged = await replay(req, { body: other, cookie: `toolgate_session=tg_ss_${'B'.repeat(32)}` })
    expect(forged.text).toContain('You are not signed in')
    expect(approval('lookup')?.status).toBe('pending')
    expect(listActivity(d.db).length).toBe(before)
    // proof the replay itself is sound: with the real session it goes through
    expect((await replay(req, { body: other, cookie: session })).text).toContain('"ok":true')
    expect(approval('lookup')?.status).toBe('approved')
    await context.close()
  })

  it('server actions reject bad input (zod) with a visible message and change nothing', async () => {
    const { context, page } = await signedIn(d)
    await visit(page, '/tokens')
    const before = listActivity(d.db).length
    await page.getByLabel('Name').first().fill('not a valid name!')
    await page.getByRole('button', { name: 'Create token' }).click()
    const alert = page.getByRole('alert').filter({ hasText: 'Why:' })
    await eventually(() => alert.textContent()).toContain('Invalid input')
    expect(await alert.textContent()).toContain('token name may use letters')
    expect(d.db.select().from(agentTokens).all().map((t) => t.name).sort()).toEqual(['demo-agent', 'nightly', 'notes-bot'])
    expect(listActivity(d.db).length).toBe(before)

    // a hand-made payload that breaks the schema is refused the same way
    await visit(page, '/servers/notes')
    const captured = captureAction(page)
    await page.getByTestId('tool-notes:read_note').getByRole('button', { name: 'Block' }).click()
    const req = await captured
    await eventually(() => approval('read_note')?.disabled).toBe(true)
    const session = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
    const bad = (req.postData() ?? '').replace(/"ids":\[[^\]]*\]/, '"ids":[]')
    expect(bad).toContain('"ids":[]')
    const count = listActivity(d.db).length
    expect((await replay(req, { body: bad, cookie: session })).text).toContain('select at least one tool')
    expect(listActivity(d.db).length).toBe(count)
    await context.close()
  })

  it('signs out server-side (the old cookie is refused everywhere at once), and rotating the operator key ends every session', async () => {
    const a = await signedIn(d)
    const b = await signedIn(d)
    // an action request a made while signed in, to replay after sign-out
    await visit(a.page, '/servers/notes')
    const captured = captureAction(a.page)
    await a.page.getByTestId('tool-notes:write_note').getByRole('button', { name: 'Block' }).click()
    const req = await captured
    await eventually(() => approval('write_note')?.disabled).toBe(true)
    const oldCookie = (await a.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')

    await a.page.getByRole('button', { name: 'Sign out' }).click()
    await a.page.waitForURL((u) => u.pathname === '/login')
    expect(await a.context.cookies()).toEqual([])
    expect(await a.page.evaluate(() => localStorage.getItem('toolgate.session-key'))).toBeNull()
    // the same cookie value, kept by an attacker: a page, a route handler and a replayed action all refuse it
    const page = await fetch(`${d.server.url}/servers`, { headers: { cookie: oldCookie }, redirect: 'manual' })
    expect(page.status).toBe(307)
    expect(page.headers.get('location')).toMatch(/^\/login\?next=/)
    expect((await fetch(`${d.server.url}/api/dashboard/session`, { headers: { cookie: oldCookie } })).status).toBe(401)
    const before = listActivity(d.db).length
    const replayed = await replay(req, { body: (req.postData() ?? '').replace('notes:write_note', 'notes:search_notes'), cookie: oldCookie })
    expect(replayed.text).toContain('You are not signed in')
    expect(approval('search_notes')?.disabled ?? false).toBe(false)
    expect(listActivity(d.db).length).toBe(before)
    await visit(b.page, '/servers')
    expect(new URL(b.page.url()).pathname).toBe('/servers')
    await rotateOperatorKey(d.db, { actor: 'test' })
    await visit(b.page, '/servers')
    expect(new URL(b.page.url()).pathname).toBe('/login')
    await a.context.close()
    await b.context.close()
  })
})
