import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { tokens } from '@/db/queries/access'
import { callOutcomes, latestActivityId, listActivity } from '@/db/queries/activity'
import type { ActivityItem } from '@/lib/activity/present'
import { appendActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import { localInputValue, verdictChart } from '@/lib/dashboard/activity'
import { MAX_STREAMS } from '@/lib/dashboard/activity-stream'
import type { Verdict } from '@/lib/preflight/taxonomy'
import { eventually, seriousViolations, sessionHeaders, signedIn, visit, startDashboard, type Dashboard } from './harness'

const H = 3_600_000
const iso = (ms: number) => new Date(ms).toISOString()

let d: Dashboard
let session: Record<string, string>
// the seeded checks: two hours of known counts, 3 and 5 hours back (never the current hour's bar)
let b1: number
let b2: number
const blockedInB1: number[] = []

// each seeded check's one tool has a reason of its verdict's class: each check holds one class
const reasonOf = { blocked: 'server_not_in_scope', degraded_retryable: 'server_initializing', unknown_ids: 'not_found' } as const
const check = (actor: string, verdict: Verdict, at: number) => appendActivity(d.db, {
  requestId: mintRequestId(), type: 'preflight', actor, surface: 'rest', tier: 'agent', verdict, at,
  data: { ids_raw: 1, ids_unique: 1, duration_ms: 1, tools: [verdict === 'ready' ? { id: 'notes:read_note', status: 'ready' } : { id: 'billing:get_invoice', status: 'unavailable', reason: reasonOf[verdict] }] },
})
const call = (actor: string) => appendActivity(d.db, {
  requestId: mintRequestId(), type: 'tool.call', actor, surface: 'mcp-shape-a', tier: 'agent', server: 'notes', data: { target: 'notes:read_note', arguments_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', outcome: 'ok', duration_ms: 1 },
})

beforeAll(async () => {
  d = await startDashboard()
  const { context, page } = await signedIn(d)
  session = await sessionHeaders(context, page)
  await context.close()
  b1 = Math.floor((Date.now() - 3 * H) / H) * H
  b2 = b1 - 2 * H
  // oldest first, one at a time: ids follow time, as they do when records are written live
  await check('token:nightly', 'ready', b2 + 60_000)
  const b1Checks: [string, Verdict, number][] = [
    ['token:nightly', 'blocked', 3], ['token:demo-agent', 'blocked', 2], ['token:nightly', 'degraded_retryable', 2],
    ['token:nightly', 'ready', 4], ['token:nightly', 'unknown_ids', 1],
  ]
  let at = b1 + 60_000
  for (const [actor, verdict, n] of b1Checks) {
    for (let i = 0; i < n; i++) {
      const row = await check(actor, verdict, (at += 1_000))
      if (verdict === 'blocked') blockedInB1.push(row.id)
    }
  }
})
afterAll(async () => { await d?.stop() })

const streamUrl = (query: string) => `${d.server.url}/api/dashboard/activity/stream?${query}`
async function openStream(query: string, headers: Record<string, string> = {}) {
  const ac = new AbortController()
  const res = await fetch(streamUrl(query), { headers: { ...session, ...headers }, signal: ac.signal })
  return { res, close: () => ac.abort() }
}

/** Read `records` events until `want` records came (20 s at most), in the order sent. */
async function readRecords(res: Response, want: number): Promise<ActivityItem[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  const got: ActivityItem[] = []
  const deadline = Date.now() + 20_000
  let buffer = ''
  while (got.length < want && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now()))])
    if (next === null || next.done) break
    buffer += next.value
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n')
      buffer = buffer.slice(end + 2)
      const data = lines.find((l) => l.startsWith('data: '))
      if (lines.includes('event: records') && data) got.push(...(JSON.parse(data.slice('data: '.length)) as ActivityItem[]))
    }
  }
  await reader.cancel()
  return got
}

const bar = (page: Page, start: number) => page.locator(`[data-testid=chart-bar][data-start="${iso(start)}"]`)
const shownIds = (page: Page) => page.getByTestId('activity-record').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-id'))))
const byId = (a: number, b: number) => a - b

describe('activity: the live stream route', () => {
  it('answers 401 without a session, 403 to a foreign Origin, 400 naming a bad parameter', async () => {
    const anonymous = await fetch(streamUrl('after=0'))
    expect(anonymous.status).toBe(401)
    expect((await anonymous.json()).error).toBe('not signed in')
    const foreign = await fetch(streamUrl('after=0'), { headers: { ...session, origin: 'http://evil.example' } })
    expect(foreign.status).toBe(403)
    expect((await foreign.json()).error).toContain('Origin "http://evil.example" may not use this toolgate')
    const bad = await fetch(streamUrl('after=soon&token=no:colons'), { headers: session })
    expect(bad.status).toBe(400)
    expect((await bad.json()).error).toMatch(/^after: .*; token: /)
  })

  it('sends every matching record after the cursor, however many arrived at once; a reconnect from `after` resumes', async () => {
    const after = latestActivityId(d.db)
    // one burst (one group commit) of more records than one event carries
    const burst = await Promise.all(Array.from({ length: 1_200 }, (_, i) => call(i % 2 ? 'token:nightly' : 'token:demo-agent')))
    const nightly = burst.filter((r) => r.actor === 'token:nightly').map((r) => r.id).sort(byId)
    const first = await openStream(`after=${after}&token=nightly`)
    expect(first.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    const got = await readRecords(first.res, nightly.length)
    first.close()
    expect(got.map((r) => r.id)).toEqual(nightly)
    expect(new Set(got.map((r) => r.actor))).toEqual(new Set(['token:nightly']))
    // the page reconnects naming the last record it received
    const resumed = await openStream(`after=${nightly[299]}&token=nightly`)
    expect((await readRecords(resumed.res, 300)).map((r) => r.id)).toEqual(nightly.slice(300))
    resumed.close()
  })

  it(`bounds open streams at ${MAX_STREAMS}, and frees them when clients leave`, async () => {
    const far = latestActivityId(d.db) + 1_000_000
    const open = await Promise.all(Array.from({ length: MAX_STREAMS }, () => openStream(`after=${far}`)))
    expect(open.map((s) => s.res.status)).toEqual(Array(MAX_STREAMS).fill(200))
    const refused = await fetch(streamUrl(`after=${far}`), { headers: session })
    expect(refused.status).toBe(503)
    expect((await refused.json()).error).toBe(`${MAX_STREAMS} live activity streams are open already`)
    for (const s of open) s.close()
    await eventually(async () => {
      const again = await openStream(`after=${far}`)
      again.close()
      return again.res.status
    }).toBe(200)
  })
})

describe('activity: the verdict chart\'s counts (one grouped query)', () => {
  const sum = (chart: ReturnType<typeof verdictChart>) => chart!.bars.reduce((acc, b) => {
    for (const [v, n] of Object.entries(b.counts)) acc[v] = (acc[v] ?? 0) + n
    return acc
  }, {} as Record<string, number>)

  it('follow the server filter (checks name servers in their ids), the token, and a From–To window at a finer grain', () => {
    const window = { from: b1, to: b1 + H - 1 }
    expect(sum(verdictChart(d.db, { ...window, server: 'billing' }, '24h'))).toEqual({ ready: 0, degraded_retryable: 2, blocked: 5, unknown_ids: 1 })
    expect(sum(verdictChart(d.db, { ...window, server: 'notes' }, '24h'))).toEqual({ ready: 4, degraded_retryable: 0, blocked: 0, unknown_ids: 0 })
    const hour = verdictChart(d.db, { ...window, token: 'demo-agent' }, '24h')!
    expect(hour.span).toBeNull()
    expect(hour.bars.map((b) => b.end - b.start)).toEqual(Array(12).fill(5 * 60_000))
    // the seeded checks are 61–72 s into the hour: all in its first five minutes
    expect(hour.bars.map((b) => b.counts.blocked)).toEqual([2, ...Array(11).fill(0)])
  })

  it('follow the free-text search: a tool id in the checks\' data', () => {
    const window = { from: b1, to: b1 + H - 1 }
    expect(sum(verdictChart(d.db, { ...window, q: 'billing:get_invoice' }, '24h'))).toEqual({ ready: 0, degraded_retryable: 2, blocked: 5, unknown_ids: 1 })
    // the minute counts cannot answer free text: the records are counted, the same over the day as in the hour
    expect(sum(verdictChart(d.db, { q: 'NOTES:READ_NOTE' }, '24h'))).toEqual({ ready: 5, degraded_retryable: 0, blocked: 0, unknown_ids: 0 })
  })

  it('count a check under every class it holds: 1 unknown id beside 9 blocked tools is counted unknown and blocked', async () => {
    const at = b1 - 30 * H // a day before the seeded hours: out of every other test's chart
    const tools = [{ id: 'notes:nope', status: 'unavailable' as const, reason: 'not_found' },
      ...Array.from({ length: 9 }, (_, i) => ({ id: `billing:t${i}`, status: 'unavailable' as const, reason: 'server_not_in_scope' }))]
    await appendActivity(d.db, { requestId: mintRequestId(), type: 'preflight', actor: 'token:nightly', surface: 'rest', tier: 'agent', verdict: 'unknown_ids', at,
      data: { ids_raw: 10, ids_unique: 10, duration_ms: 1, tools } })
    const window = { from: at - 1_000, to: at + 1_000 }
    expect(sum(verdictChart(d.db, window, '24h'))).toEqual({ ready: 0, degraded_retryable: 0, blocked: 1, unknown_ids: 1 })
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, `/activity?from=${iso(window.from)}&to=${iso(window.to)}`)
    const legend = page.getByRole('list', { name: 'Legend: checks in this range holding each class' })
    await eventually(() => legend.innerText()).toMatch(/blocked 1\s+unknown ids 1\s+retryable 0\s+ready 0/)
    expect(await page.getByTestId('chart-counts-what').textContent()).toContain('Each check counts under every class it holds')
    await context.close()
  })

  it('a type of calls charts the calls alone, a verdict the checks alone; a type neither checks nor calls has no chart', () => {
    expect(verdictChart(d.db, { type: 'tool.call' }, '24h')!.rows).toEqual({ checks: false, calls: true })
    expect(verdictChart(d.db, { verdict: 'blocked' }, '24h')!.rows).toEqual({ checks: true, calls: false })
    expect(verdictChart(d.db, { type: 'tool.approved' }, '24h')).toBeNull()
    const checks = verdictChart(d.db, { type: 'preflight' }, '7d')!
    expect(checks.bars).toHaveLength(28)
    expect(checks.rows).toEqual({ checks: true, calls: false })
  })
})

describe('activity: verdict chart, token picker, live updates', () => {
  it('the chart shows the seeded checks per hour; a bar segment (by keyboard) filters the list to its hour and verdict', async () => {
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/activity')
    await eventually(() => bar(page, b1).getAttribute('aria-label')).toMatch(/: checks holding blocked 5, unknown ids 1, retryable 2, ready 4$/)
    expect(await bar(page, b2).getAttribute('aria-label')).toMatch(/: checks holding ready 1$/)
    // every check in the chart's 24 hours is in exactly one bar (each seeded check holds one class)
    const bars = await page.getByTestId('chart-bar').evaluateAll((els) => els.map((e) => ({ start: e.getAttribute('data-start')!, counts: JSON.parse(e.getAttribute('data-counts')!) as Record<string, number> })))
    expect(bars).toHaveLength(24)
    const inWindow = listActivity(d.db, { type: 'preflight', limit: 100_000 }).filter((r) => r.at >= Date.parse(bars[0].start))
    expect(bars.reduce((n, b) => n + Object.values(b.counts).reduce((a, c) => a + c, 0), 0)).toBe(inWindow.length)
    expect(await seriousViolations(page)).toEqual([])

    const blocked = bar(page, b1).getByRole('link', { name: /^5 blocked, .*: show the checks whose worst class is blocked$/ })
    await blocked.focus()
    await page.keyboard.press('Enter')
    await page.waitForURL((u) => u.searchParams.get('verdict') === 'blocked')
    const url = new URL(page.url())
    expect([url.searchParams.get('from'), url.searchParams.get('to')]).toEqual([iso(b1), iso(b1 + H - 1)])
    await eventually(async () => (await shownIds(page)).sort(byId)).toEqual([...blockedInB1].sort(byId))
    // the form carries the bar's interval and verdict, so another filter keeps them
    expect(await page.getByLabel('Verdict').inputValue()).toBe('blocked')
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(localInputValue(b1))
    await page.getByLabel('Agent token').selectOption('nightly')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL((u) => u.searchParams.get('token') === 'nightly')
    expect(new URL(page.url()).searchParams.get('verdict')).toBe('blocked')
    await eventually(async () => (await shownIds(page)).length).toBe(3)
    await context.close()
  })

  it('the token picker lists the agent tokens and filters the list, the chart and the export', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/activity')
    const options = await page.locator('#f-token option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
    expect(options).toEqual(['', ...tokens(d.db).map((t) => t.name)])
    expect(options).toContain('nightly')
    await page.getByLabel('Agent token').selectOption('nightly')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL((u) => u.search === '?token=nightly')
    await eventually(() => bar(page, b1).getAttribute('aria-label')).toMatch(/: checks holding blocked 3, unknown ids 1, retryable 2, ready 4$/)
    const actors = await page.getByTestId('activity-record').evaluateAll((els) => els.map((e) => e.getAttribute('data-actor')))
    expect(actors).toHaveLength(50)
    expect(new Set(actors)).toEqual(new Set(['token:nightly']))

    // the download is fetched with the session key and saved from a blob
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV', exact: true }).click()])
    expect(download.suggestedFilename()).toMatch(/\.csv$/)
    const lines = readFileSync((await download.path())!, 'utf8').trim().split('\r\n').slice(1)
    const nightly = listActivity(d.db, { actor: 'token:nightly', limit: 100_000 })
    expect(lines.map((l) => Number(l.split(',')[0]))).toEqual(nightly.map((r) => r.id))
    expect(lines.every((l) => l.split(',')[5] === 'token:nightly')).toBe(true)
    const everyone = await (await fetch(`${d.server.url}/activity/export?format=json`, { headers: session })).json()
    expect(everyone.records.length).toBeGreaterThan(nightly.length)
    await context.close()
  })

  it('new records arrive over one stream (fetched, in SSE framing) without a reload or polling, a burst in full', async () => {
    const { page, context } = await signedIn(d)
    const api: string[] = []
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname
      if (path.startsWith('/api/dashboard/activity')) api.push(`${r.resourceType()} ${path}`)
    })
    await visit(page, '/activity')
    const opened = Date.now()
    await eventually(() => page.getByText('Live: new records appear here as they are recorded.').count()).toBe(1)
    const res = await fetch(`${d.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg_at_demo_nightly_0000' }, body: JSON.stringify({ tools: [{ id: 'notes:read_note' }] }),
    })
    await eventually(() => page.getByRole('link', { name: res.headers.get('x-request-id')! }).count()).toBe(1)
    const burst = (await Promise.all(Array.from({ length: 150 }, () => call('token:notes-bot')))).map((r) => r.id)
    await eventually(async () => {
      const shown = new Set(await shownIds(page))
      return burst.filter((id) => !shown.has(id)).length
    }).toBe(0)
    expect(await page.getByText('151 new since this page loaded.').count()).toBe(1)
    // a 2-second poll would have asked several times by now
    await page.waitForTimeout(Math.max(0, opened + 5_000 - Date.now()))
    expect(api).toEqual(['fetch /api/dashboard/activity/stream'])
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(1)
    await context.close()
  })
})

describe('activity: the log explorer', () => {
  const exportCall = (requestId: string) => appendActivity(d.db, {
    requestId, type: 'tool.call', actor: 'token:exporter', surface: 'mcp-shape-a', tier: 'agent', server: 'notes',
    data: { target: 'notes:export_notes', arguments_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', outcome: 'ok', duration_ms: 3 },
  })

  it('free-text search (q) finds a record by tool id and by request id prefix, in the list and the export; too long is refused naming q', async () => {
    const exported = await exportCall('search-run-4711')
    const other = await exportCall('search-run-4712')
    const { page, context } = await signedIn(d)
    await visit(page, '/activity')
    await page.getByLabel('Search text').fill('export_notes')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL((u) => u.searchParams.get('q') === 'export_notes')
    await eventually(async () => (await shownIds(page)).sort(byId)).toEqual([exported.id, other.id])
    await visit(page, '/activity?q=search-run-4711')
    await eventually(() => shownIds(page)).toEqual([exported.id])
    await visit(page, '/activity?q=search-run-47')
    await eventually(async () => (await shownIds(page)).sort(byId)).toEqual([exported.id, other.id])
    expect(await page.getByLabel('Search text').inputValue()).toBe('search-run-47')
    const json = await (await fetch(`${d.server.url}/activity/export?format=json&q=search-run-4711`, { headers: session })).json()
    expect(json.records.map((r: ActivityItem) => r.id)).toEqual([exported.id])

    await visit(page, `/activity?q=${'x'.repeat(201)}`)
    await eventually(() => page.getByText('Ignored filter: q: search text is at most 200 characters').count()).toBe(1)
    const refused = await fetch(`${d.server.url}/activity/export?format=json&q=${'x'.repeat(201)}`, { headers: session })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error).toMatch(/^q: search text is at most 200 characters/)
    await context.close()
  })

  it('facets count per type, actor and verdict as listActivity does for the same filter; a facet link (by keyboard) adds its filter', async () => {
    const expected = (records: ActivityItem[] | ReturnType<typeof listActivity>, field: 'type' | 'actor' | 'verdict') => {
      const counts = new Map<string, number>()
      for (const r of records) if (r[field] !== null) counts.set(r[field]!, (counts.get(r[field]!) ?? 0) + 1)
      return [...counts].sort(([a, n], [b, m]) => m - n || (a < b ? -1 : a > b ? 1 : 0)).slice(0, 8)
    }
    const shown = (page: Page, field: string) => page.locator(`[data-testid=facet][data-facet=${field}]`)
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-value'), Number(e.getAttribute('data-count'))]))
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/activity')
    expect(await page.getByText('in the latest 10 000 records these filters match').count()).toBe(1)
    const all = listActivity(d.db, { limit: 100_000 })
    expect(all.length).toBeLessThan(10_000) // so the window holds them all
    for (const field of ['type', 'actor', 'verdict'] as const) await eventually(() => shown(page, field)).toEqual(expected(all, field))
    expect(await seriousViolations(page)).toEqual([])

    await visit(page, '/activity?token=nightly')
    const nightly = listActivity(d.db, { actor: 'token:nightly', limit: 100_000 })
    for (const field of ['type', 'actor', 'verdict'] as const) await eventually(() => shown(page, field)).toEqual(expected(nightly, field))
    expect(await shown(page, 'actor')).toEqual([['token:nightly', nightly.length]])
    const checks = page.getByRole('link', { name: `preflight: ${nightly.filter((r) => r.type === 'preflight').length} records, filter by it` })
    await checks.focus()
    await page.keyboard.press('Enter')
    await page.waitForURL((u) => u.searchParams.get('type') === 'preflight')
    expect(new URL(page.url()).searchParams.get('token')).toBe('nightly')
    const want = listActivity(d.db, { actor: 'token:nightly', type: 'preflight', limit: 50 }).map((r) => r.id)
    await eventually(() => shownIds(page)).toEqual(want)
    await context.close()
  })

  it('a record opens whole in a dialog by Enter or a click: focus moves in and stays, Escape closes and returns it; invisible characters shown', async () => {
    const rec = await appendActivity(d.db, {
      requestId: 'drawer-run-1', type: 'tool.call', actor: 'token:exporter', surface: 'mcp-shape-a', tier: 'agent', server: 'notes',
      data: { target: 'notes:read\u200b_note', arguments_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', outcome: 'ok', duration_ms: 2 },
    })
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/activity?q=drawer-run-1')
    const line = page.locator(`[data-testid=activity-record][data-id="${rec.id}"]`)
    await line.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: `Record ${rec.id}: tool.call` })
    await eventually(() => dialog.count()).toBe(1)
    expect(await page.evaluate(() => !!document.activeElement?.closest('[role=dialog]'))).toBe(true)
    // every field, data included, as recorded; the arguments themselves are not in the log (only their hash)
    const raw = JSON.parse((await dialog.locator('pre').getAttribute('data-raw'))!)
    expect(raw).toMatchObject({ id: rec.id, request_id: 'drawer-run-1', type: 'tool.call', actor: 'token:exporter', surface: 'mcp-shape-a', tier: 'agent', server: 'notes', verdict: null, auth: null })
    expect(raw.data).toEqual({ target: 'notes:read\u200b_note', arguments_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', outcome: 'ok', duration_ms: 2 })
    expect(await dialog.locator('pre').innerText()).toContain('"target": "notes:read⟦U+200B⟧_note"')
    expect(await dialog.getByRole('link', { name: 'drawer-run-1' }).getAttribute('href')).toBe('/activity/drawer-run-1')
    expect(await dialog.getByRole('button', { name: 'Copy the request id' }).count()).toBe(1)
    expect(await dialog.getByRole('button', { name: `Copy JSON: Record ${rec.id}` }).count()).toBe(1)
    expect(await seriousViolations(page)).toEqual([])
    // Tab wraps inside the dialog
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => !!document.activeElement?.closest('[role=dialog]'))).toBe(true)
    }
    await page.keyboard.press('Escape')
    await eventually(() => dialog.count()).toBe(0)
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-id'))).toBe(String(rec.id))

    // a click on the line opens it too (a link in the line keeps its own job); Close closes
    await line.locator('span').last().click()
    await eventually(() => dialog.count()).toBe(1)
    await dialog.getByRole('button', { name: 'Close' }).click()
    await eventually(() => dialog.count()).toBe(0)
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-id'))).toBe(String(rec.id))
    await context.close()
  })

  it('the chart counts tool calls per interval by outcome (an outcome record ends its call), the check counts unchanged', async () => {
    const checksBefore = verdictChart(d.db, {}, '24h')!.bars.map((b) => b.counts)
    const hash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    const base = { type: 'tool.call' as const, actor: 'token:exporter', surface: 'mcp-shape-a' as const, tier: 'agent' as const, server: 'notes' }
    const forwarded = await appendActivity(d.db, { ...base, requestId: 'calls-run-1', data: { target: 'notes:read_note', arguments_hash: hash } })
    await appendActivity(d.db, { ...base, type: 'tool.call_outcome', requestId: 'calls-run-1', data: { target: 'notes:read_note', call: forwarded.id, outcome: 'tool_error', duration_ms: 5 } })
    await appendActivity(d.db, { ...base, requestId: 'calls-run-2', data: { target: 'notes:delete_note', arguments_hash: hash, outcome: 'held', duration_ms: 1 } })
    await appendActivity(d.db, { ...base, requestId: 'calls-run-3', data: { target: 'notes:delete_note', arguments_hash: hash, outcome: 'refused', reason: 'not_approved', duration_ms: 1 } })
    await appendActivity(d.db, { ...base, requestId: 'calls-run-4', data: { target: 'notes:read_note', arguments_hash: hash } })

    const chart = verdictChart(d.db, {}, '24h')!
    // checks are counted as before: the calls are a series of their own
    expect(chart.bars.map((b) => b.counts)).toEqual(checksBefore)
    // the same counts from the records, in JS: each call's end on its own record or its outcome record
    const calls = listActivity(d.db, { type: 'tool.call', limit: 100_000 }).filter((r) => r.type === 'tool.call' && r.at >= chart.bars[0].start)
    const ends = callOutcomes(d.db, calls)
    const group = (o?: string) => (o === undefined ? 'pending' : o === 'tool_error' || o === 'failed' ? 'failed' : o === 'ok' || o === 'held' ? o : 'refused')
    const want = (from: number) => {
      const n: Record<string, number> = { ok: 0, failed: 0, refused: 0, held: 0, pending: 0 }
      for (const c of calls) if (c.at >= from) n[group((c.data as { outcome?: string }).outcome ?? ends.get(c.id)?.data.outcome)]++
      return n
    }
    const total = chart.bars.reduce((acc, b) => {
      for (const [g, n] of Object.entries(b.calls)) acc[g] = (acc[g] ?? 0) + n
      return acc
    }, {} as Record<string, number>)
    expect(total).toEqual(want(chart.bars[0].start))
    expect(total).toMatchObject({ failed: 1, refused: 1, held: 1, pending: 1 })

    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/activity')
    const last = chart.bars[chart.bars.length - 1]
    const inLast = want(last.start)
    const n = Object.values(inLast).reduce((a, b) => a + b, 0)
    const callBar = page.locator(`[data-testid=call-bar][data-start="${iso(last.start)}"]`)
    // the bar names the outcomes it has (run alone, this test's calls are the hour's only ones)
    await eventually(() => callBar.getAttribute('aria-label'))
      .toMatch(new RegExp(`: ${n} calls — ${inLast.ok ? `${inLast.ok} ok, ` : ''}1 failed, 1 refused or not run, 1 held, 1 no outcome yet$`))
    expect(await page.getByRole('list', { name: 'Legend: tool calls in this range' }).innerText()).toContain(`held ${total.held}`)
    expect(await page.getByTestId('call-bar').count()).toBe(24)
    expect(await seriousViolations(page)).toEqual([])
    // calls alone: the calls row is the chart
    await visit(page, '/activity?type=tool.call')
    await eventually(() => page.getByRole('heading', { name: /^Tool calls per hour, last 24 hours/ }).count()).toBe(1)
    expect(await page.getByTestId('chart-bar').count()).toBe(0)
    expect(await page.getByTestId('call-bar').count()).toBe(24)
    expect(await page.getByRole('list', { name: 'Legend: tool calls in this range' }).innerText()).toContain(`held ${total.held}`)
    await context.close()
  })

  it('saved views: the current filters kept under a name in this browser, listed as links; a bad name is refused naming it; forget removes one', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/activity?token=nightly&verdict=blocked')
    const save = page.getByRole('form', { name: 'Save this view' })
    await save.getByRole('button', { name: 'Save these filters' }).click()
    await eventually(() => save.getByRole('alert').textContent()).toBe('name: name the view')
    await save.getByLabel('View name').fill('x'.repeat(61))
    await save.getByRole('button', { name: 'Save these filters' }).click()
    await eventually(() => save.getByRole('alert').textContent()).toBe('name: a view name is at most 60 characters')
    expect(await page.evaluate(() => localStorage.getItem('toolgate.activity.views'))).toBeNull()
    await save.getByLabel('View name').fill('nightly blocked')
    await save.getByRole('button', { name: 'Save these filters' }).click()
    const views = page.getByRole('region', { name: 'Saved views' })
    await eventually(() => views.getByRole('link', { name: 'nightly blocked' }).count()).toBe(1)
    expect(await save.getByRole('alert').count()).toBe(0)

    // kept across page loads, and it takes you back to those filters
    await visit(page, '/activity')
    await views.getByRole('link', { name: 'nightly blocked' }).click()
    await page.waitForURL((u) => u.searchParams.get('token') === 'nightly' && u.searchParams.get('verdict') === 'blocked')
    await eventually(async () => (await shownIds(page)).sort(byId)).toEqual(listActivity(d.db, { actor: 'token:nightly', verdict: 'blocked', limit: 50 }).map((r) => r.id).sort(byId))
    await views.getByRole('button', { name: 'Forget the view nightly blocked' }).click()
    await eventually(() => views.getByRole('link', { name: 'nightly blocked' }).count()).toBe(0)
    expect(await page.evaluate(() => localStorage.getItem('toolgate.activity.views'))).toBe('[]')
    await context.close()
  })
})

describe('activity: a bad filter in the URL', () => {
  const problems: [string, string][] = [
    ['type=nosuch', 'type: no record type "nosuch" — pick one from the type filter\'s list'],
    ['type=tool.cal', 'type: no record type "tool.cal" — did you mean "tool.call"'],
    ['verdict=bogus', 'verdict must be one of ready, degraded_retryable, blocked, unknown_ids (not "bogus")'],
    ['from=notadate', 'from: "notadate" is not a date (use YYYY-MM-DD'],
  ]

  it('the stream\'s 400 names the bad parameter in a line, not a dump of every value it may take', async () => {
    for (const [param, problem] of problems) {
      const res = await fetch(streamUrl(`after=0&${param}`), { headers: session })
      expect(res.status, param).toBe(400)
      const { error } = await res.json()
      expect(error, param).toContain(problem)
      // the record types are many: a bad one is answered with its look-alikes at most
      expect(error.length, param).toBeLessThan(200)
    }
  })

  it('is named on the page, which lists what the other filters match and streams live with only those', async () => {
    const { page, context } = await signedIn(d)
    const streams: { url: URL; status: number }[] = []
    page.on('response', (r) => {
      const url = new URL(r.url())
      if (url.pathname === '/api/dashboard/activity/stream') streams.push({ url, status: r.status() })
    })
    for (const [param, problem] of problems) {
      streams.length = 0
      await visit(page, `/activity?${param}&token=nightly`)
      await eventually(() => page.locator('main [role=alert]').filter({ hasText: 'Ignored filter' }).textContent()).toContain(problem)
      expect(await page.locator('main [role=alert]').textContent()).toContain('The list shows what the other filters match, without this one.')
      await eventually(() => page.getByText('Live: new records appear here as they are recorded.').count()).toBe(1)
      await eventually(async () => (await shownIds(page)).sort(byId)).toEqual(listActivity(d.db, { actor: 'token:nightly', limit: 50 }).map((r) => r.id).sort(byId))
      const [key] = param.split('=')
      expect(streams.length, param).toBeGreaterThan(0)
      for (const s of streams) {
        expect(s.status, param).toBe(200)
        expect(s.url.searchParams.has(key), param).toBe(false)
        expect(s.url.searchParams.get('token'), param).toBe('nightly')
      }
    }
    await context.close()
  })
})

describe('activity: one request\'s page', () => {
  it('names whom a check ran as (the token) and who ran it (the operator): a dashboard check as token nightly', async () => {
    const { page, context } = await signedIn(d)
    const before = latestActivityId(d.db)
    await visit(page, '/preflight?id=notes:read_note&token=nightly&run=1')
    const record = await eventually(() => listActivity(d.db, { type: 'preflight', surface: 'dashboard' }).find((r) => r.id > before)).toBeDefined()
      .then(() => listActivity(d.db, { type: 'preflight', surface: 'dashboard' }).find((r) => r.id > before)!)
    expect(record).toMatchObject({ actor: 'break-glass', tier: 'agent', data: { as: 'token:nightly' } })
    await visit(page, `/activity/${record.requestId}`)
    const header = page.getByText(/^via dashboard · /)
    await eventually(() => header.textContent()).toMatch(/^via dashboard · agent tier as token:nightly · run by break-glass · 1 unique of 1 requested ids/)
    const rerun = new URL((await page.getByRole('link', { name: /Run this check again in Preflight/ }).getAttribute('href'))!, d.server.url)
    expect(rerun.searchParams.get('token')).toBe('nightly')
    await context.close()
  })

  it('says why for a request id nothing was recorded under, and for a malformed one (the not-found page, not the story)', async () => {
    const unknown = [['req_nonexistent', 'No activity was recorded under this request id.'], ['not%20an%20id!', '"not an id!" is not a request id']]
    const { page, context } = await signedIn(d)
    for (const [id, why] of unknown) {
      await visit(page, `/activity/${id}`)
      await eventually(() => page.locator('main').textContent()).toContain(why)
      expect(await page.getByRole('heading', { name: 'Request story' }).count()).toBe(1)
    }
    await context.close()
  })
})
