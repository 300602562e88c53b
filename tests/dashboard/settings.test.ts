import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { readSettings } from '@/db/queries/settings'
import { addOperator } from '@/lib/admin/operators'
import { eventually, screenshot, signedIn, signedInWithPassword, visit, startDashboard, type Dashboard } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

describe('settings page', () => {
  it('shows who is signed in since when and what the log keeps, and saves the anonymous profile and retention on the record', async () => {
    const { context, page } = await signedIn(d)
    await visit(page, '/settings')
    const sessions = page.getByRole('list', { name: 'Signed-in sessions' })
    await eventually(() => sessions.textContent()).toMatch(/Operator since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/)
    expect(await sessions.textContent()).toContain('HeadlessChrome')
    expect(await page.getByText('Oldest record kept').locator('xpath=following-sibling::dd[1]').textContent()).toMatch(/UTC/)
    expect(await page.getByText('Database size').locator('xpath=following-sibling::dd[1]').textContent()).toMatch(/\d+(\.\d)? (KiB|MiB) \(\+ \d+(\.\d)? (KiB|MiB) write-ahead log\)/)

    const anonymous = await fetch(`${d.server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })
    expect(anonymous.status).toBe(401)

    await page.getByLabel('Anonymous MCP profile').selectOption('ops')
    await page.getByLabel('Retention in days').fill('30')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await eventually(() => page.getByRole('status').textContent()).toContain('Saved and recorded.')
    expect(readSettings(d.db)).toMatchObject({ mcpAnonymousProfile: 'ops', activityRetentionDays: 30 })
    const now = await fetch(`${d.server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })
    expect(now.status).toBe(200)

    await screenshot(page, 'settings')
    await context.close()
  })

  it('an admin sets the two-person rule and turns the break-glass key off, on the record under their name; refused, a save changes nothing', async () => {
    /** On the Settings page: the two-person rule set, the key unticked, saved. */
    const save = async (page: Page, rule: string) => {
      await visit(page, '/settings')
      const form = page.getByRole('form', { name: 'Proxy settings' })
      await form.getByLabel('Two-person rule (two_person_rule)').selectOption(rule)
      await form.getByRole('checkbox', { name: /Break-glass key/ }).uncheck()
      await form.getByRole('button', { name: 'Save settings' }).click()
      return form
    }
    const glass = await signedIn(d)
    const form = await save(glass.page, 'destructive')
    // no admin account yet: with the key off nobody could sign in as an admin
    await eventually(() => form.getByRole('alert').textContent()).toContain('break_glass_key: create an enabled admin account first')
    expect(readSettings(d.db)).toMatchObject({ breakGlassKey: true, twoPersonRule: 'off' })
    const saves = listActivity(d.db, { type: 'settings.changed' }).length

    await addOperator(d.db, { username: 'ada', name: 'Ada Admin', role: 'admin', password: 'ada picks a long password' }, { actor: 'test-setup' })
    const ada = await signedInWithPassword(d, 'ada', 'ada picks a long password')
    const hers = await save(ada.page, 'all')
    await eventually(() => hers.getByRole('status').textContent()).toContain('Saved and recorded.')
    expect(readSettings(d.db)).toMatchObject({ breakGlassKey: false, twoPersonRule: 'all' })
    const changes = listActivity(d.db, { type: 'settings.changed' }) as unknown as { actor: string; auth: string; data: { before: Record<string, unknown>; after: Record<string, unknown> } }[]
    expect(changes.length).toBe(saves + 1)
    expect({ actor: changes[0].actor, auth: changes[0].auth }).toEqual({ actor: 'ada', auth: 'session' })
    expect(changes[0].data.before).toMatchObject({ break_glass_key: true, two_person_rule: 'off' })
    expect(changes[0].data.after).toMatchObject({ break_glass_key: false, two_person_rule: 'all' })
    // the page shows what was saved; the key's own session has ended
    await visit(ada.page, '/settings')
    expect(await hers.getByLabel('Two-person rule (two_person_rule)').inputValue()).toBe('all')
    expect(await hers.getByRole('checkbox', { name: /Break-glass key/ }).isChecked()).toBe(false)
    await glass.page.goto('/settings')
    await glass.page.waitForURL((u) => u.pathname === '/login', { timeout: 20_000 })
    for (const c of [glass.context, ada.context]) await c.close()
  }, 120_000)
})
