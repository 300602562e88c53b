import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { screenshot, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

const row = (page: Page, id: string) => page.getByTestId(`row-${id}`)
const verdict = (page: Page) => page.getByRole('status', { name: /verdict/ }).getAttribute('aria-label')

describe('agent-and-operator view', () => {
  it('a check as token nightly shows what the agent was told and, beside it, the cause and the fix', async () => {
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/preflight?id=billing:get_invoice&id=notes:read_note&token=nightly')
    await page.getByRole('button', { name: 'Run preflight' }).click()
    await eventually(() => verdict(page)).toBe('verdict unknown_ids, exit code 12')
    // no profile chosen, yet nightly's pin applies: the field says so rather than "no narrowing"
    expect(await page.locator('#profile option[value=""]').textContent()).toBe('None (token’s pin “ops” applies)')

    // the agent layer: exactly what the token is told (the agent tier's not_found)
    const billing = row(page, 'billing:get_invoice')
    expect(await billing.getAttribute('data-reason')).toBe('not_found')
    // the operator layer beside it: the real cause, where it comes from, and the fix
    expect(await billing.getAttribute('data-cause')).toBe('server_not_in_scope')
    const cause = (await page.getByTestId('cause-billing:get_invoice').textContent())!
    expect(cause).toContain('Agent sees not_found — because server_not_in_scope')
    expect(cause).toContain('outside profile "ops", which token "nightly" is pinned to')
    // a ready row has no second layer
    expect(await row(page, 'notes:read_note').getAttribute('data-status')).toBe('ready')
    expect(await page.getByTestId('cause-notes:read_note').count()).toBe(0)
    await screenshot(page, 'preflight-as-token-nightly')

    // the fix leads to the profile that excludes billing
    await billing.getByRole('link', { name: /Edit profile ops/ }).click()
    await page.waitForURL((u) => u.pathname === '/tokens' && u.hash === '#profile-ops')
    await eventually(() => page.getByTestId('profile-ops').isVisible()).toBe(true)
    await context.close()
  })

  it('opening a token\'s check from Activity runs it on arrival, with both layers', async () => {
    const res = await fetch(`${d.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg_at_demo_nightly_0000' },
      body: JSON.stringify({ tools: [{ id: 'billing:get_invoice' }] }),
    })
    const requestId = res.headers.get('x-request-id')!
    const { page, context } = await signedIn(d)
    await visit(page, `/activity/${requestId}`)
    await page.getByRole('link', { name: /Run this check again in Preflight/ }).click()
    await page.waitForURL((u) => u.pathname === '/preflight')
    // no click on Run: the link runs the check
    await eventually(() => row(page, 'billing:get_invoice').getAttribute('data-cause')).toBe('server_not_in_scope')
    expect(await page.getByLabel('Evaluate as').inputValue()).toBe('nightly')
    // focus moved to the result once it arrived
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Result')
    await context.close()
  })

  it('offers only fixes that can work: every offered button succeeds, impossible ones say what to do instead', async () => {
    const { page, context } = await signedIn(d)
    const ids = ['legacy-ci:run_job', 'notes:purge_notes', 'notes:rebuild_index', 'github:list_issues', 'notes:export_notes', 'jira:create_ticket', 'slack:post_message', 'search:web_search']
    await visit(page, `/preflight?${new URLSearchParams(ids.map((id) => ['id', id]))}`)
    await page.getByRole('button', { name: 'Run preflight' }).click()
    await eventually(() => verdict(page)).toBe('verdict blocked, exit code 11')

    // a state-file server: the runtime does not run it, so nothing is offered — advice instead
    expect(await row(page, 'search:web_search').getByRole('button').count()).toBe(0)
    expect(await page.getByTestId('advice-search:web_search').textContent()).toContain('toolgate does not run')
    // servers the runtime manages get their real fix (pressed against the demo's services in tests/demo)
    expect(await row(page, 'jira:create_ticket').getByRole('button', { name: 'Log in' }).count()).toBe(1)
    expect(await row(page, 'slack:post_message').getByRole('button', { name: /Restart/ }).count()).toBe(1)
    await screenshot(page, 'preflight-only-working-fixes')

    // (Next's route announcer is an alert too: only the page's own count)
    const alerts = page.locator('main [role=alert]')
    const fixAndExpectReady = async (id: string, click: () => Promise<void>) => {
      await click()
      await eventually(() => row(page, id).getAttribute('data-status')).toBe('ready')
      expect(await alerts.count(), `no error after fixing ${id}`).toBe(0)
    }
    await fixAndExpectReady('legacy-ci:run_job', () => row(page, 'legacy-ci:run_job').getByRole('button', { name: /Enable server/ }).click())
    await fixAndExpectReady('notes:purge_notes', async () => {
      await row(page, 'notes:purge_notes').getByRole('button', { name: /Unblock tool/ }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, unblock tool' }).click()
    })
    await fixAndExpectReady('notes:rebuild_index', async () => {
      await row(page, 'notes:rebuild_index').getByRole('button', { name: /Allow in config/ }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, allow in config' }).click()
    })
    await fixAndExpectReady('notes:export_notes', async () => {
      await row(page, 'notes:export_notes').getByRole('button', { name: /Review & approve/ }).click()
      await page.getByRole('button', { name: 'Approve this definition' }).click()
    })
    await fixAndExpectReady('github:list_issues', async () => {
      await row(page, 'github:list_issues').getByRole('button', { name: /Review server/ }).click()
      await page.getByRole('button', { name: 'Release server github' }).click()
    })
    expect(await page.getByText(/cannot apply|not an HTTP upstream|nothing to log in to|Correct the highlighted input/).count()).toBe(0)
    // every fix is on the record under the check's request id
    const requestId = (await page.getByRole('link', { name: /^req_/ }).first().textContent())!
    const types = listActivity(d.db, { requestId, limit: 50 }).map((r) => r.type)
    expect(types).toEqual(expect.arrayContaining(['server.enabled', 'tool.enabled', 'server.configured', 'tool.approved', 'server.unquarantined']))

    // Overview: the same honesty — no Restart button where none can work, the real ones where they can
    await visit(page, '/')
    const search = page.getByTestId('server-item-search')
    expect(await search.getByRole('button').count()).toBe(0)
    expect(await search.textContent()).toContain('toolgate does not run')
    expect(await page.getByTestId('server-item-jira').getByRole('button', { name: 'Log in to jira' }).count()).toBe(1)
    expect(await page.getByTestId('server-item-slack').getByRole('button', { name: 'Restart slack' }).count()).toBe(1)
    await context.close()
  })
})
