import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, signedIn, startDashboard, OPERATOR_KEY, type Dashboard } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

describe('global search', () => {
  it('/ focuses it; it finds a request id on the record, tool ids, servers and tokens, each a link to its page', async () => {
    // a check by the nightly agent, over REST: its request id is what an operator is handed
    const res = await fetch(`${d.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': OPERATOR_KEY, 'x-request-id': 'req_search_me_0001' },
      body: JSON.stringify({ tools: [{ id: 'billing:get_invoice' }] }),
    })
    expect(res.status).toBe(200)
    const { context, page } = await signedIn(d, { width: 1440, height: 900 })
    const box = page.getByRole('searchbox', { name: 'Search tools, servers, tokens and request ids' })
    // the shortcut works once the page is hydrated: press until it takes (it types no "/" itself)
    await eventually(async () => {
      await page.keyboard.press('/')
      return box.evaluate((el) => el === document.activeElement)
    }).toBe(true)
    expect(await box.inputValue()).toBe('')

    await box.fill('invoice')
    const results = page.getByRole('list', { name: 'Search results' })
    await eventually(() => results.textContent()).toContain('billing:get_invoice')
    await box.fill('night')
    await eventually(() => results.textContent()).toMatch(/token\s*nightly/)
    await box.fill('no-such-thing-anywhere')
    await eventually(() => results.textContent()).toContain('Nothing matches.')

    await box.fill('req_search_me_0001')
    await results.getByRole('link', { name: /req_search_me_0001/ }).click()
    await page.waitForURL((u) => u.pathname === '/activity/req_search_me_0001')
    await eventually(() => page.getByText('billing:get_invoice').count()).toBeGreaterThan(0)
    await context.close()
  })

  it('answers only a signed-in operator', async () => {
    expect((await fetch(`${d.server.url}/api/dashboard/search?q=notes`)).status).toBe(401)
  })
})
