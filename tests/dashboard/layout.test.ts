import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serverLogs } from '@/db/schema'
import { screenshot, sessionHeaders, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

// every state the demo has, at once: the widest rows the results can have
const IDS = ['billing:get_invoice', 'notes:read_note', 'notes:export_notes', 'notes:share_note', 'notes:purge_notes', 'notes:rebuild_index',
  'github:list_issues', 'legacy-ci:run_job', 'jira:create_ticket', 'slack:post_message', 'search:web_search', 'notes:read_not']
const url = `/preflight?${new URLSearchParams([...IDS.map((id) => ['id', id]), ['token', 'nightly'], ['run', '1']])}`

/** Each row header (the id) as laid out: on how many lines its text sits. */
const idLines = (page: Page) => page.locator('[data-testid^="row-"] th').evaluateAll((els) => els.map((e) => {
  const range = document.createRange()
  range.selectNodeContents(e)
  const line = Math.max(...[...range.getClientRects()].map((r) => r.height))
  return { id: e.textContent, lines: Math.round(range.getBoundingClientRect().height / line) }
}))

/** Elements that stick out of the viewport horizontally (cut off), by their text. */
const cutOff = (page: Page) => page.evaluate(() => {
  const out: string[] = []
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect()
    if (r.width > 0 && (r.right > window.innerWidth + 1 || r.left < -1) && !el.closest('pre')) out.push(`${el.tagName} ${(el.textContent ?? '').slice(0, 40)}`)
  }
  return out
})

describe('readable results at every width', () => {
  it('at 1440 px no id wraps, and the preview sits below the results', async () => {
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, url)
    await eventually(() => page.locator('[data-testid^="row-"]').count()).toBe(IDS.length)
    for (const { id, lines } of await idLines(page)) expect(lines, `${id} takes ${lines} lines`).toBe(1)
    const table = await page.getByRole('table', { name: 'Per-tool verdicts' }).boundingBox()
    const preview = await page.locator('details[aria-label="Live _meta preview"]').boundingBox()
    expect(preview!.y).toBeGreaterThan(table!.y + table!.height - 1)
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await screenshot(page, 'results-1440')
    // where the table fits, no scroll hint
    await visit(page, '/servers')
    expect(await page.getByText('Scroll the table sideways for every column').isVisible()).toBe(false)
    await context.close()
  })

  it('at 390 px nothing is cut off, and the preview is folded below', async () => {
    const { page, context } = await signedIn(d, { width: 390, height: 844 })
    await visit(page, url)
    await eventually(() => page.locator('[data-testid^="row-"]').count()).toBe(IDS.length)
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    expect(await cutOff(page)).toEqual([])
    // every fix button is on screen horizontally, whole
    for (const box of await page.locator('[data-testid^="row-"] button, [data-testid^="row-"] a').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()))) {
      expect(box.left).toBeGreaterThanOrEqual(0)
      expect(box.right).toBeLessThanOrEqual(390)
    }
    // the preview folds once the page has measured the screen (after hydration)
    await eventually(() => page.locator('details[aria-label="Live _meta preview"]').getAttribute('open')).toBeNull()
    await screenshot(page, 'results-390')
    // a long log line (a stack trace, a URL) must scroll inside its box, not widen the page
    d.db.insert(serverLogs).values({ serverName: 'notes', at: Date.now(), stream: 'stderr', line: `Error: ${'x'.repeat(400)} at http://127.0.0.1:7311/${'y'.repeat(200)}` }).run()
    for (const path of ['/', '/tokens/nightly', '/activity', '/servers/notes', '/settings', '/surface']) {
      await visit(page, path)
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), path).toBe(true)
      await screenshot(page, `narrow${path.replace(/\//g, '-') || '-overview'}`)
    }
    // a table wider than the phone scrolls in its own box, says so, and takes the keyboard
    await visit(page, '/servers')
    const table = page.getByRole('region', { name: 'Servers table' })
    expect(await table.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true)
    expect(await page.getByText('Scroll the table sideways for every column').isVisible()).toBe(true)
    await table.focus()
    await page.keyboard.press('ArrowRight')
    await eventually(() => table.evaluate((e) => e.scrollLeft)).toBeGreaterThan(0)
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await context.close()
  })

  it('says "out of date" when the form changed after a run', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/preflight?id=notes:read_note&run=1')
    await eventually(() => page.getByTestId('row-notes:read_note').getAttribute('data-status')).toBe('ready')
    expect(await page.getByTestId('result-stale').count()).toBe(0)
    await page.getByLabel(/Read-only tools only/).check()
    await eventually(() => page.getByTestId('result-stale').count()).toBe(1)
    await page.getByTestId('result-stale').getByRole('button', { name: 'Run again' }).click()
    await eventually(() => page.getByTestId('result-stale').count()).toBe(0)
    await context.close()
  })
})

describe('polish', () => {
  it('has a favicon, a branded 404, a skip link, named buttons and an honest unknown token', async () => {
    const icon = await fetch(`${d.server.url}/icon.svg`)
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toContain('image/svg+xml')
    const { page, context } = await signedIn(d)
    await eventually(() => page.locator('link[rel="icon"]').count()).toBeGreaterThan(0)

    const missing = await visit(page, '/no/such/page')
    expect(missing!.status()).toBe(404)
    expect(await page.getByRole('heading', { name: 'No page at this address' }).count()).toBe(1)
    expect(await page.getByRole('link', { name: 'Overview' }).count()).toBe(1)

    await visit(page, '/tokens')
    await page.keyboard.press('Tab')
    const skip = page.getByRole('link', { name: 'Skip to content' })
    expect(await skip.evaluate((e) => e === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main')
    // repeated buttons say which token they are for
    for (const t of ['demo-agent', 'nightly', 'notes-bot']) expect(await page.getByRole('button', { name: `Revoke token ${t}`, exact: true }).count(), t).toBe(1)

    // a token that does not exist: the not-found page says why
    await visit(page, '/tokens/nosuch')
    await eventually(() => page.locator('main').textContent()).toContain('No agent token named “nosuch” exists: it was revoked, renamed or never created.')
    expect(await page.getByRole('link', { name: 'All tokens' }).count()).toBe(1)

    await visit(page, '/preflight?token=nosuch&id=notes:read_note')
    expect(await page.locator('main [role=alert]').textContent()).toContain('No agent token named “nosuch” exists')
    expect(await page.getByLabel('Evaluate as').inputValue()).toBe('nosuch')
    await context.close()
  })

  it('activity: grouped type filter, clean URLs, relative times with the absolute time on hover, JSON and CSV export', async () => {
    for (const ids of [['notes:read_note'], ['legacy-ci:run_job']]) {
      await fetch(`${d.server.url}/api/v1/preflight`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg_at_demo_nightly_0000' }, body: JSON.stringify({ tools: ids.map((id) => ({ id })) }) })
    }
    const { page, context } = await signedIn(d)
    await visit(page, '/activity')
    expect(await page.locator('#f-type optgroup').evaluateAll((gs) => gs.map((g) => g.getAttribute('label')))).toEqual(expect.arrayContaining(['Checks', 'Tools', 'Servers']))
    await page.getByLabel('Verdict').selectOption('blocked')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL((u) => u.search === '?verdict=blocked')
    const time = page.getByTestId('activity-record').first().locator('time')
    await eventually(() => time.textContent()).toMatch(/ago|now/)
    expect(await time.getAttribute('title')).toMatch(/\d{4}.*(UTC|GMT|[A-Z]{3,4}|[+-]\d)/)

    const session = await sessionHeaders(context, page)
    const csv = await fetch(`${d.server.url}/activity/export?format=csv&verdict=blocked`, { headers: session })
    expect(csv.headers.get('content-type')).toContain('text/csv')
    const lines = (await csv.text()).trim().split('\r\n')
    expect(lines[0]).toBe('id,request_id,at,type,surface,actor,auth,tier,verdict,server,summary,target,outcome,duration_ms,reason,error,call_id,approver,arguments_hash,arguments')
    expect(lines.slice(1).every((l) => l.includes(',blocked,'))).toBe(true)
    expect(lines.some((l) => l.includes('legacy-ci:run_job server_disabled'))).toBe(true)
    const json = await (await fetch(`${d.server.url}/activity/export?format=json&verdict=blocked`, { headers: session })).json()
    expect(json.records.length).toBe(lines.length - 1)
    // the route checks the session itself: a forged cookie gets no records
    expect((await fetch(`${d.server.url}/activity/export?format=json`, { headers: { cookie: 'toolgate_session=forged' } })).status).toBe(401)
    await screenshot(page, 'activity-filtered')
    await context.close()
  })
})
