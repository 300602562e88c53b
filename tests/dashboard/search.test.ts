import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, signedIn, startDashboard, OPERATOR_KEY, type Dashboard } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

/** A check over REST under this request id: a request id is what an operator is handed. */
async function checkAs(requestId: string) {
  const res = await fetch(`${d.server.url}/api/v1/preflight`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': OPERATOR_KEY, 'x-request-id': requestId },
    body: JSON.stringify({ tools: [{ id: 'billing:get_invoice' }] }),
  })
  expect(res.status).toBe(200)
}

describe('global search', () => {
  it('/ focuses it; it finds a request id on the record, tool ids, servers and tokens, each opening its page', async () => {
    await checkAs('req_search_me_0001')
    const { context, page } = await signedIn(d, { width: 1440, height: 900 })
    const box = page.getByRole('combobox', { name: 'Search tools, servers, tokens and request ids' })
    // the shortcut works once the page is hydrated: press until it takes (it types no "/" itself)
    await eventually(async () => {
      await page.keyboard.press('/')
      return box.evaluate((el) => el === document.activeElement)
    }).toBe(true)
    expect(await box.inputValue()).toBe('')

    await box.fill('invoice')
    const results = page.getByRole('listbox', { name: 'Search results' })
    await eventually(() => results.textContent()).toContain('billing:get_invoice')
    await box.fill('night')
    await eventually(() => results.textContent()).toMatch(/token\s*nightly/)
    await box.fill('no-such-thing-anywhere')
    await eventually(() => page.getByRole('search').getByRole('status').textContent()).toBe('Nothing matches.')
    expect(await box.getAttribute('aria-expanded')).toBe('false')

    await box.fill('req_search_me_0001')
    await results.getByRole('option', { name: /req_search_me_0001/ }).click()
    await page.waitForURL((u) => u.pathname === '/activity/req_search_me_0001')
    await eventually(() => page.getByText('billing:get_invoice').count()).toBeGreaterThan(0)
    expect(await box.inputValue()).toBe('')
    await context.close()
  })

  it('a pasted partial request id lists the requests it begins, newest first; the arrow keys pick one, Enter opens it, Escape closes', async () => {
    for (const id of ['req_partial_a1', 'req_partial_b2', 'req_partial_c3', 'req_partiam_x9']) await checkAs(id)
    const { context, page } = await signedIn(d, { width: 1440, height: 900 })
    const box = page.getByRole('combobox', { name: 'Search tools, servers, tokens and request ids' })
    const results = page.getByRole('listbox', { name: 'Search results' })
    const options = results.getByRole('option')
    const active = () => box.evaluate((el) => {
      const id = el.getAttribute('aria-activedescendant')
      const option = id ? document.getElementById(id) : null
      return option && option.getAttribute('aria-selected') === 'true' ? option.textContent : null
    })
    await eventually(async () => {
      await box.fill('req_partial_')
      return options.allTextContents()
    }).toEqual(['requestreq_partial_c3', 'requestreq_partial_b2', 'requestreq_partial_a1'])
    expect(await box.getAttribute('aria-expanded')).toBe('true')
    expect(await box.getAttribute('aria-controls')).toBe(await results.getAttribute('id'))
    expect(await active()).toBeNull()

    // ArrowDown twice: the second result; ArrowUp and down again; the field keeps focus throughout
    await box.press('ArrowDown')
    expect(await active()).toBe('requestreq_partial_c3')
    await box.press('ArrowDown')
    expect(await active()).toBe('requestreq_partial_b2')
    await box.press('ArrowUp')
    expect(await active()).toBe('requestreq_partial_c3')
    await box.press('ArrowDown')
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true)

    // Escape closes the list and keeps the text; ArrowDown opens it again, Escape twice clears it
    await box.press('Escape')
    expect(await box.getAttribute('aria-expanded')).toBe('false')
    expect(await box.getAttribute('aria-activedescendant')).toBeNull()
    expect(await results.isVisible()).toBe(false)
    expect(await box.inputValue()).toBe('req_partial_')
    await box.press('ArrowDown')
    expect(await box.getAttribute('aria-expanded')).toBe('true')
    await box.press('Escape')
    await box.press('Escape')
    expect(await box.inputValue()).toBe('')

    await box.fill('req_partial_')
    await eventually(() => options.count()).toBe(3)
    await box.press('ArrowDown')
    await box.press('ArrowDown')
    expect(await active()).toBe('requestreq_partial_b2')
    await box.press('Enter')
    await page.waitForURL((u) => u.pathname === '/activity/req_partial_b2')
    expect(await box.inputValue()).toBe('')
    await context.close()
  })

  it('answers only a signed-in operator', async () => {
    expect((await fetch(`${d.server.url}/api/dashboard/search?q=notes`)).status).toBe(401)
  })
})
