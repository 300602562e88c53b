import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { signedIn, signedInWithPassword, startDashboard, visit, eventually, type Dashboard } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

describe('named operators in the browser', () => {
  it('an admin invites a person; the link works once; they sign in with their password and see only what their role allows', async () => {
    const admin = await signedIn(d)
    await visit(admin.page, '/operators')
    const form = admin.page.getByRole('form', { name: 'Invite a person' })
    await form.getByLabel('Username', { exact: true }).fill('vera')
    await form.getByLabel('Name', { exact: true }).fill('Vera Viewer')
    await form.getByLabel('Role').selectOption('viewer')
    await form.getByRole('button', { name: 'Invite' }).click()
    const link = (await admin.page.getByTestId('invitation-link').textContent({ timeout: 20_000 }))!
    expect(link).toMatch(/\/invite\/tg_iv_/)

    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    await page.goto(link)
    await page.getByLabel('New password').fill('vera picks a password')
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    await page.waitForURL((u) => u.pathname === '/', { timeout: 20_000 })
    await eventually(() => page.locator('[data-person]').getAttribute('data-person')).toBe('vera')

    // a viewer reads a server's tools, without a button that changes them
    await visit(page, '/servers/notes')
    await page.getByTestId('tool-notes:export_notes').waitFor()
    // (its one button copies the pin)
    expect(await page.getByTestId('tool-notes:export_notes').getByRole('button').allTextContents()).toEqual([expect.stringMatching(/^Copy/)])
    expect(await page.getByRole('button', { name: /Review & approve|Block|Unblock/ }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Disable' }).count()).toBe(0)

    // the link is spent
    const again = await d.browser.newContext({ baseURL: d.server.url })
    const p2 = await again.newPage()
    await p2.goto(link)
    await p2.getByLabel('New password').fill('someone else tries it')
    await p2.getByRole('button', { name: 'Set password and sign in' }).click()
    await eventually(() => p2.getByRole('alert').filter({ hasText: 'Why:' }).textContent()).toContain('already used')

    // and the password signs in from a fresh browser
    const { context: fresh } = await signedInWithPassword(d, 'vera', 'vera picks a password')
    expect(listActivity(d.db, { type: 'operator.signed_in' }).map((r) => r.actor)).toEqual(['vera', 'vera', 'break-glass'])
    expect(listActivity(d.db, { type: 'operator.invited' })[0].actor).toBe('break-glass')
    for (const c of [admin.context, context, again, fresh]) await c.close()
  }, 120_000)
})
