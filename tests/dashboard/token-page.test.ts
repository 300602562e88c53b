import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { screenshot, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

describe('a page per agent token', () => {
  it('shows the scope, the tools the token cannot use and why, and its recent checks, linked from activity', async () => {
    const res = await fetch(`${d.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg_at_demo_nightly_0000' },
      body: JSON.stringify({ tools: [{ id: 'billing:get_invoice' }] }),
    })
    const requestId = res.headers.get('x-request-id')!
    const { page, context } = await signedIn(d)
    // one click from the activity record of that token
    await visit(page, `/activity/${requestId}`)
    await page.getByRole('link', { name: 'token:nightly' }).first().click()
    await page.waitForURL((u) => u.pathname === '/tokens/nightly')

    expect(await page.getByTestId('token-reach').textContent()).toContain('notes, github, legacy-ci, jira, slack, search, docs, notebook, ops'.split(', ').sort().join(', '))
    expect(await page.getByRole('list', { name: 'Servers outside its scope' }).textContent()).toContain('billing: outside its pinned profile “ops”')
    const blocked = page.getByRole('region', { name: 'Tools nightly cannot use' })
    expect(await blocked.getByTestId('blocked-billing:get_invoice').getAttribute('data-reason')).toBe('server_not_in_scope')
    expect(await blocked.getByTestId('blocked-notes:export_notes').getAttribute('data-reason')).toBe('tool_pending_approval')
    expect(await blocked.getByTestId('blocked-legacy-ci:run_job').getAttribute('data-reason')).toBe('server_disabled')
    expect(await blocked.getByTestId('blocked-notes:read_note').count()).toBe(0)
    // its recent checks, with their verdicts
    expect(await page.getByTestId('activity-record').filter({ hasText: 'billing:get_invoice not_found' }).count()).toBe(1)
    await screenshot(page, 'token-nightly')

    // grouped by cause: every id outside profile ops is one group with the one fix, to the profile that leaves them out
    const outside = blocked.getByTestId('cause-server_not_in_scope:Edit profile ops')
    expect(await outside.getByTestId('blocked-billing:get_invoice').count()).toBe(1)
    expect(Number(await outside.getAttribute('data-count'))).toBeGreaterThanOrEqual(1)
    await outside.getByRole('link', { name: 'Edit profile ops' }).click()
    await page.waitForURL((u) => u.pathname === '/tokens' && u.hash === '#profile-ops')
    const ops = page.getByTestId('profile-ops')
    // the link lands on the profile: scrolled into view and marked, once the page's content is there
    await eventually(() => ops.getAttribute('data-targeted')).toBe('true')
    const box = (await ops.boundingBox())!
    expect(box.y).toBeGreaterThanOrEqual(0)
    expect(box.y).toBeLessThan(page.viewportSize()!.height)
    await page.getByRole('group', { name: 'Servers in ops' }).getByLabel('billing').check()
    expect(await ops.getByText('Unsaved changes').count()).toBe(1)
    await page.getByRole('button', { name: 'Save servers of profile ops' }).click()
    // the save is confirmed where it was made, naming what the profile now reaches
    await eventually(async () => (await ops.getByRole('status').textContent()) ?? '').toMatch(/^Saved: ops reaches .*billing/)
    expect(await ops.getByText('Unsaved changes').count()).toBe(0)
    await visit(page, '/tokens/nightly')
    await eventually(() => page.getByTestId('blocked-billing:get_invoice').count()).toBe(0)
    await context.close()
  })
})
