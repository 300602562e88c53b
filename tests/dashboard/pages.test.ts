import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentTokens, servers, toolApprovals } from '@/db/schema'
import { listActivity } from '@/db/queries/activity'
import { clickConfirmed, screenshot, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'
import { connectionState } from '@/tests/upstream/harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

const preflightRest = (token: string, ids: string[]) => fetch(`${d.server.url}/api/v1/preflight`, {
  method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ tools: ids.map((id) => ({ id })) }),
})

describe('dashboard pages', () => {
  it('overview lists what needs an operator, each with its fix', async () => {
    // the page is read once: slack's start has failed by then (a loaded machine may still be trying)
    await eventually(() => connectionState(d.db, 'slack')?.state).not.toMatch(/^(connecting|discovering)$/)
    const { page, context } = await signedIn(d)
    await visit(page, '/')
    await eventually(() => page.getByRole('heading', { name: /Tools waiting for approval \(2\)/ }).count()).toBe(1)
    // slack is not connected; docs and search have no transport: nothing to call is never healthy
    for (const heading of [/Quarantined servers \(1\)/, /Logins needed \(1\)/, /Unhealthy servers \(3\)/]) {
      expect(await page.getByRole('heading', { name: heading }).count(), String(heading)).toBe(1)
    }
    await screenshot(page, 'overview')
    // the changed tool shows its diff before it can be approved
    const changed = page.getByTestId('waiting-notes:share_note')
    await changed.getByText('Review the change, then approve').click()
    // the review loads when its panel opens
    await eventually(() => changed.getByLabel('What changed in notes:share_note').count()).toBe(1)
    expect(await changed.getByLabel('What changed in notes:share_note').textContent()).toContain('Share a note with a teammate.')
    expect(await changed.getByLabel('Definition of notes:share_note').textContent()).toContain('"name": "notes:share_note"')
    // its change widens reach: approving asks first, naming the high-risk parts
    await changed.getByRole('button', { name: 'Approve this definition', exact: true }).click()
    expect(await changed.getByRole('alertdialog', { name: 'Confirm: Approve this definition' }).getByRole('alert').textContent()).toMatch(/^2 high-risk changes \(.*new parameter "cc".*\): approve anyway\?$/)
    expect(d.db.select().from(toolApprovals).where(eq(toolApprovals.toolName, 'share_note')).get()?.status).toBe('changed')
    await changed.getByRole('alertdialog', { name: 'Confirm: Approve this definition' }).getByRole('button', { name: 'Approve this definition', exact: true }).click()
    await eventually(() => page.getByTestId('waiting-notes:share_note').count()).toBe(0)
    expect(d.db.select().from(toolApprovals).where(eq(toolApprovals.toolName, 'share_note')).get()?.status).toBe('approved')
    await context.close()
  })

  it('server detail: bulk approve in one go, settings saved on the record, release after review', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/servers')
    await screenshot(page, 'servers')
    // a served tool is not callable while its server waits for a login: the count says both
    expect(await page.getByTestId('server-jira').textContent()).toContain('1/1 served (calls wait for a login)')
    expect(await page.getByTestId('server-notes').textContent()).not.toContain('calls wait')
    await visit(page, '/servers/notes')
    // a stdio server: the revision it is spoken to at is fixed, and the page says so
    expect(await page.getByTestId('protocol').textContent()).toMatch(/^MCP revision: 2025-11-25, always: a stdio server is not probed/)
    await page.getByLabel('Select export_notes').check()
    await page.getByLabel('Select tag_note').check()
    await page.getByRole('button', { name: 'Approve selected' }).click()
    // nothing is approved unseen: both definitions are shown first
    const review = page.getByLabel('Review before approving')
    expect(await review.getByLabel('Definition of notes:export_notes').textContent()).toContain('Export every note as one JSON document.')
    expect(await review.textContent()).toContain('notes:tag_note: already approved')
    expect(d.db.select().from(toolApprovals).where(eq(toolApprovals.toolName, 'export_notes')).get()?.status).toBe('pending')
    await review.getByRole('button', { name: 'Approve 2 definitions' }).click()
    await eventually(() => page.getByTestId('tool-notes:export_notes').getAttribute('data-status')).toBe('callable')
    expect(listActivity(d.db, { type: 'tool.approved' }).map((r) => (r.data as { target: string }).target)).toEqual(expect.arrayContaining(['notes:export_notes', 'notes:tag_note']))

    await page.getByLabel('Disabled tools (one per line)').fill('')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await eventually(() => page.getByText('Saved and recorded.').count()).toBe(1)
    expect(d.db.select().from(servers).where(eq(servers.name, 'notes')).get()?.disabledTools).toEqual([])
    expect(listActivity(d.db, { type: 'server.configured' })[0].data).toMatchObject({ before: { disabledTools: ['rebuild_index'] }, after: { disabledTools: [] } })
    await screenshot(page, 'server-notes')

    await visit(page, '/servers/github')
    expect(await page.getByLabel('Tools github would expose').textContent()).toContain('list_issues')
    await page.getByRole('button', { name: 'Release github' }).click()
    await eventually(() => page.getByRole('button', { name: 'Release github' }).count()).toBe(0)
    expect(d.db.select().from(servers).where(eq(servers.name, 'github')).get()?.quarantined).toBe(false)
    await context.close()
  })

  it('creates a token shown once, previews as it, and revokes it', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/tokens')
    await page.getByLabel('Name').first().fill('ci-bot')
    await page.getByRole('group', { name: 'Allowed servers' }).first().getByLabel('billing').check()
    await page.getByRole('button', { name: 'Create token' }).click()
    const secret = (await page.getByTestId('new-token').textContent())!
    expect(secret).toMatch(/^tg_at_/)
    const row = d.db.select().from(agentTokens).where(eq(agentTokens.name, 'ci-bot')).get()!
    expect(row.tokenHash).not.toContain(secret)
    expect(row.allowedServers).toEqual(['billing'])
    expect((await preflightRest(secret, ['billing:get_invoice'])).status).toBe(200)
    await screenshot(page, 'tokens')

    await page.getByTestId('token-ci-bot').getByRole('link', { name: 'Preflight as this token' }).click()
    await page.waitForURL((u) => u.pathname === '/preflight')
    expect(await page.getByLabel('Evaluate as').inputValue()).toBe('ci-bot')
    const ids = page.getByRole('combobox', { name: 'Tool ids' })
    await ids.fill('notes:read_note')
    await ids.press('Enter')
    await page.getByRole('button', { name: 'Run preflight' }).click()
    // out of the token's scope: the agent tier says not_found, never server_not_in_scope
    await eventually(() => page.getByTestId('row-notes:read_note').getAttribute('data-reason')).toBe('not_found')

    await visit(page, '/tokens')
    await clickConfirmed(page.getByTestId('token-ci-bot'), 'Revoke token ci-bot')
    await eventually(() => page.getByTestId('token-ci-bot').count()).toBe(0)
    expect((await preflightRest(secret, ['billing:get_invoice'])).status).toBe(401)
    await context.close()
  })

  it('a token expires when told (a past time is refused, changing nothing), shows when, and when it was last used', async () => {
    const { page, context } = await signedIn(d)
    const local = (ms: number) => { const t = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000); return t.toISOString().slice(0, 16) }
    const stored = () => d.db.select().from(agentTokens).where(eq(agentTokens.name, 'expiring')).get()
    const expiryRecords = () => listActivity(d.db, { limit: 50 }).filter((r) => r.type === 'token.expiry_changed' || (r.type === 'token.created' && r.data.target === 'expiring')).length
    await visit(page, '/tokens')
    await page.getByLabel('Name').first().fill('expiring')
    await page.locator('#token-expires').fill('2020-01-01T00:00')
    await page.getByRole('button', { name: 'Create token' }).click()
    const form = page.getByRole('form', { name: 'Create an agent token' })
    await eventually(async () => (await form.textContent()) ?? '').toContain('Invalid input: expiresAt: must be in the future (or null: never expires)')
    expect(stored()).toBeUndefined()
    expect(expiryRecords()).toBe(0)

    const at = Date.now() + 3 * 86_400_000 + 3_600_000
    await page.locator('#token-expires').fill(local(at))
    await page.getByRole('button', { name: 'Create token' }).click()
    const secret = (await page.getByTestId('new-token').textContent())!
    expect(Math.abs(stored()!.expiresAt! - at)).toBeLessThan(60_000) // the input has minutes
    const row = page.getByTestId('token-expiring')
    await eventually(async () => (await row.getByTestId('token-expiry').textContent()) ?? '').toBe('expires in 3 days')
    expect(await row.getByTestId('token-last-used').textContent()).toBe('never used')

    expect((await preflightRest(secret, ['notes:read_note'])).status).toBe(200)
    await visit(page, '/tokens/expiring')
    await eventually(async () => (await page.getByTestId('token-last-used').textContent()) ?? '').toMatch(/^last used (now|\d+ seconds? ago)$/)
    expect(await page.getByTestId('token-expiry').textContent()).toBe('expires in 3 days')
    await screenshot(page, 'token-expiry')

    // a past expiry in the editor is refused and changes nothing
    const before = stored()!.expiresAt
    const records = expiryRecords()
    await page.getByRole('button', { name: 'Edit scope and expiry of token expiring' }).click()
    await page.locator('#token-expires-expiring').fill('2020-01-01T00:00')
    await page.getByRole('button', { name: 'Save expiry of token expiring' }).click()
    await eventually(async () => (await page.getByTestId('token-expiring').textContent()) ?? '').toContain('expiresAt: must be in the future')
    expect(stored()!.expiresAt).toBe(before)
    expect(expiryRecords()).toBe(records)

    await page.getByRole('button', { name: 'Make token expiring never expire' }).click()
    await eventually(async () => (await page.getByTestId('token-expiry').textContent()) ?? '').toBe('never expires')
    expect(stored()!.expiresAt).toBeNull()
    expect(expiryRecords()).toBe(records + 1)

    // expired (as time passes): shown as such, and refused
    d.db.update(agentTokens).set({ expiresAt: Date.now() - 2 * 3_600_000 }).where(eq(agentTokens.name, 'expiring')).run()
    await visit(page, '/tokens')
    await eventually(async () => (await page.getByTestId('token-expiring').getByTestId('token-expiry').textContent()) ?? '').toBe('expired 2 hours ago')
    expect(await page.getByTestId('token-expiring').getByTestId('token-expiry').getAttribute('data-expired')).toBe('true')
    expect((await preflightRest(secret, ['notes:read_note'])).status).toBe(401)

    // rotated with a new expiry: the new secret works, the old one stays refused
    const row2 = page.getByTestId('token-expiring')
    await row2.getByRole('button', { name: 'Rotate token expiring' }).click()
    const next = Date.now() + 7 * 86_400_000 + 3_600_000
    await page.locator('#rotate-expires-expiring').fill(local(next))
    await row2.getByRole('button', { name: 'Yes, rotate' }).click()
    const rotated = (await page.getByTestId('rotated-expiring').textContent())!
    expect(Math.abs(stored()!.expiresAt! - next)).toBeLessThan(60_000)
    expect((await preflightRest(rotated, ['notes:read_note'])).status).toBe(200)
    expect((await preflightRest(secret, ['notes:read_note'])).status).toBe(401)
    await context.close()
  })

  it('the activity timeline shows new records live, without a reload', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/activity')
    const loads = await page.evaluate(() => performance.getEntriesByType('navigation').length)
    const res = await preflightRest('tg_at_demo_nightly_0000', ['notes:read_note'])
    const requestId = res.headers.get('x-request-id')!
    await eventually(() => page.getByRole('link', { name: requestId }).count()).toBe(1)
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(loads)
    expect(await page.getByText(/1 new since this page loaded/).count()).toBe(1)
    await context.close()
  })

  it('did_you_mean replaces the id, and the pages work on a narrow window and in dark mode', async () => {
    const { page, context } = await signedIn(d, { width: 390, height: 844 })
    await visit(page, '/preflight?id=notes:read_not')
    await page.getByRole('button', { name: 'Run preflight' }).click()
    await page.getByRole('button', { name: 'Replace notes:read_not with notes:read_note' }).click()
    await eventually(() => page.getByTestId('row-notes:read_note').getAttribute('data-status')).toBe('ready')
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true)
    await screenshot(page, 'preflight-narrow')
    await context.close()

    const dark = await d.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark', baseURL: d.server.url })
    const p = await dark.newPage()
    await p.goto('/login')
    await screenshot(p, 'login-dark')
    await context.close()
    await dark.close()
  })
})
