// Issue 26 §7: lists at scale. On the large state (200 servers, 5,000 tools, 31 tokens) Servers and
// a server's tools are searched, filtered, sorted and paged; a token's blocked tools come grouped by
// cause and paged; the server picker searches instead of showing 200 checkboxes — and each page's
// HTML stays small.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { operatorSessionHeaders } from '@/tests/helpers/session'
import { SCALE, scaleState } from '@/tests/fixtures/scale-state'
import { eventually, signedIn, startDashboard, visit, type Dashboard } from './harness'

let d: Dashboard
let session: Record<string, string>
beforeAll(async () => {
  const { version: _, ...state } = scaleState()
  d = await startDashboard(state)
  session = await operatorSessionHeaders(d.db)
}, 180_000)
afterAll(async () => { await d?.stop() })

/** A page's whole HTML as the server sends it to a signed-in operator. */
async function html(path: string): Promise<string> {
  const res = await fetch(`${d.server.url}${path}`, { headers: session })
  const text = await res.text()
  if (res.status !== 200 || !text.includes('</html>')) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`)
  return text
}

const KB = 1024

describe('lists at 5,000 tools', () => {
  it('every list page\'s HTML stays small', async () => {
    const sizes: Record<string, number> = {}
    for (const path of ['/servers', '/servers/srv3', '/tokens', '/tokens/agent-01', '/tokens/nightly']) sizes[path] = (await html(path)).length
    console.log(`HTML sizes: ${Object.entries(sizes).map(([p, n]) => `${p} ${(n / KB).toFixed(0)} KB`).join(', ')}`)
    for (const [path, n] of Object.entries(sizes)) expect(n, path).toBeLessThan(600 * KB)
  }, 120_000)

  it('Servers: paged, searched, filtered and sorted, all in the URL', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/servers')
    const rows = page.getByRole('table', { name: 'Servers' }).locator('tbody tr')
    expect(await rows.count()).toBe(50)
    expect(await page.getByTestId('pager-range').textContent()).toBe(`1–50 of ${SCALE.servers} servers`)
    await page.getByRole('link', { name: 'Next →' }).click()
    await eventually(() => page.getByTestId('pager-range').textContent()).toBe(`51–100 of ${SCALE.servers} servers`)

    const find = page.getByRole('search', { name: 'Find servers' })
    await find.getByLabel('Search').fill('srv19')
    await find.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL((u) => u.search === '?q=srv19')
    // srv19 and srv190…srv199, in numeric order
    await eventually(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid')))).toEqual(['srv19', ...Array.from({ length: 10 }, (_, i) => `srv19${i}`)].map((n) => `server-${n}`))

    await find.getByLabel('Search').fill('')
    await find.getByLabel('Show').selectOption('pending')
    await find.getByLabel('Sort by').selectOption('tools')
    await find.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL((u) => u.search === '?show=pending&sort=tools')
    // the pending tools sit on some servers only: each row shown has one
    await eventually(async () => (await page.getByTestId('pager-range').textContent())?.match(/of (\d+) servers/)?.[1]).not.toBe(String(SCALE.servers))
    const counts = await rows.locator('td:nth-of-type(3)').allTextContents()
    expect(counts.length).toBeGreaterThan(0)
    expect(counts.every((c) => /\d+ pending/.test(c))).toBe(true)
    await context.close()
  })

  it('a server\'s tools: searched and filtered', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/servers/srv1')
    const rows = page.getByRole('table', { name: 'Tools' }).locator('tbody tr[data-testid]')
    await eventually(() => rows.count()).toBe(SCALE.toolsPerServer)
    const find = page.getByRole('search', { name: 'Find tools' })
    await find.getByLabel('Show').selectOption('review')
    await find.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL((u) => u.search === '?show=review')
    await eventually(async () => (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')))).every((s) => s === 'tool_pending_approval')).toBe(true)
    expect(await rows.count()).toBeLessThan(SCALE.toolsPerServer)
    await find.getByLabel('Show').selectOption('all')
    await find.getByLabel('Search').fill('delete_')
    await find.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL((u) => u.search === '?q=delete_')
    await eventually(async () => (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid')))).every((id) => id!.startsWith('tool-srv1:delete_'))).toBe(true)
    expect(await rows.count()).toBeGreaterThan(0)
    await context.close()
  })

  it('a token\'s blocked tools come grouped by cause, each group with its one fix, and a group opens paged', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/tokens/agent-01')
    const region = page.getByRole('region', { name: 'Tools agent-01 cannot use' })
    const groups = region.locator('section[data-count]')
    const counts = (await groups.evaluateAll((ss) => ss.map((s) => Number(s.getAttribute('data-count')))))
    const total = Number((await page.getByRole('heading', { name: /^Tools it cannot use now/ }).textContent())!.match(/\((\d+) of/)![1])
    expect(counts.reduce((a, b) => a + b, 0)).toBe(total)
    expect(counts.length).toBeLessThan(20)
    // agent-01 is pinned to team-01: the ids outside that profile are one group with one fix
    const outside = region.getByTestId('cause-server_not_in_scope:Edit profile team-01')
    const n = Number(await outside.getAttribute('data-count'))
    expect(n).toBeGreaterThan(100)
    expect(await outside.getByRole('link', { name: 'Edit profile team-01' }).getAttribute('href')).toBe('/tokens#profile-team-01')
    expect(await outside.locator('tr[data-testid]').count()).toBe(5)
    await outside.getByRole('link', { name: `Show all ${n.toLocaleString('en')} →` }).click()
    await eventually(() => outside.locator('tr[data-testid]').count()).toBe(50)
    expect(await outside.getByTestId('pager-range').textContent()).toBe(`1–50 of ${n.toLocaleString('en')} ids`)
    await outside.getByRole('link', { name: 'Next →' }).click()
    await eventually(() => outside.getByTestId('pager-range').textContent()).toBe(`51–100 of ${n.toLocaleString('en')} ids`)
    await context.close()
  })

  it('the server picker searches 200 servers instead of showing them all', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/tokens')
    const row = page.getByTestId('token-agent-01')
    await row.getByRole('button', { name: 'Edit scope and expiry of token agent-01' }).click()
    const picker = row.getByRole('group', { name: 'Allowed servers' })
    expect(await picker.getByRole('checkbox').count()).toBeLessThanOrEqual(21) // "All servers" and at most 20 matches
    expect(await picker.getByText('40 of 200 chosen').count()).toBe(1)
    await picker.getByLabel('Find a server').fill('srv19')
    await eventually(() => picker.getByRole('checkbox').count()).toBe(12) // "All servers", srv19, srv190…srv199
    await picker.getByLabel('srv199', { exact: true }).check()
    expect(await picker.getByText('41 of 200 chosen').count()).toBe(1)
    expect(await picker.getByRole('button', { name: 'Remove srv199' }).count()).toBe(1)
    await row.getByRole('button', { name: 'Save scope of token agent-01' }).click()
    await eventually(() => row.textContent()).toContain('srv199')
    await context.close()
  })
})
