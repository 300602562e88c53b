import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSettings } from '@/db/queries/settings'
import { eventually, screenshot, signedIn, visit, startDashboard, type Dashboard } from './harness'

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
})
