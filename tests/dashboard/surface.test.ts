import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { activity } from '@/db/schema'
import { readSettings } from '@/db/queries/settings'
import { surfaceReport } from '@/lib/surface/report'
import { eventually, screenshot, signedIn, visit, startDashboard, type Dashboard, type State } from './harness'

const schema = { type: 'object', properties: { q: { type: 'string' } } }
const tool = (name: string, description: string, pending = false) => ({ name, description, input_schema: schema, ...(pending ? { approval: { status: 'pending' as const } } : {}) })
const state: State = {
  servers: [
    { name: 'kb', connection: { state: 'ready' }, tools: [tool('find_notes', 'Search the knowledge base notes by keyword and return matching notes'), tool('delete_note', 'Permanently delete one note by its id')] },
    { name: 'wiki', connection: { state: 'ready' }, tools: [tool('lookup_notes', 'Search notes in the knowledge base by keyword and return the matching notes'), tool('search_notes', 'Search notes in the knowledge base by keyword, returning the matching notes', true)] },
    { name: 'billing', connection: { state: 'ready' }, tools: [tool('get_invoice', 'Fetch a customer invoice PDF by invoice number')] },
  ],
  profiles: [{ name: 'money', servers: ['billing'] }],
  agent_tokens: [{ name: 'nightly', token: 'tg_at_surface_dash_0000', allowed_servers: ['kb', 'billing'], profile_pin: null }],
}

let d: Dashboard
beforeAll(async () => { d = await startDashboard(state) })
afterAll(async () => { await d?.stop() })

describe('surface page', () => {
  it('shows each scope\'s cost and closest pair, the pair side by side with shared words marked, the charts and what a change would save', async () => {
    const { context, page } = await signedIn(d, { width: 1440, height: 900 })
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Surface' }).click()
    const scopes = page.getByRole('table')
    const catalog = surfaceReport(d.db, { kind: 'catalog' })
    await eventually(() => scopes.getByRole('row', { name: /the whole catalog/ }).textContent()).toContain(`${catalog.list_tokens}`)
    expect(await scopes.getByRole('row', { name: /token nightly/ }).textContent()).toContain(String(surfaceReport(d.db, { kind: 'token', name: 'nightly' }).list_tokens))
    expect(await scopes.getByRole('row', { name: /profile money/ }).textContent()).toMatch(/profile money\s*1/)

    const pair = page.getByRole('listitem', { name: /kb:find_notes and wiki:lookup_notes, overlap/ })
    expect(await pair.textContent()).toContain('across servers')
    expect(await pair.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['Search', 'knowledge', 'notes']))
    expect(await page.getByRole('img', { name: /Heaviest tools/ }).getAttribute('aria-label')).toContain('billing:get_invoice')
    expect(await page.getByRole('img', { name: /Tokens per server/ }).getAttribute('aria-label')).toMatch(/kb \(2\) \d+ tokens/)
    const saves = catalog.list_tokens - surfaceReport(d.db, { kind: 'profile', name: 'money' }).list_tokens // sanity: figures are real
    expect(saves).toBeGreaterThan(0)
    expect(await page.getByText(/Withholding\s*kb:find_notes/).textContent()).toMatch(/saves \d+ tokens per list and removes the closest pair/)
    await screenshot(page, 'surface-catalog')

    await page.getByRole('link', { name: 'profile money' }).click()
    await eventually(() => page.getByRole('heading', { level: 2, name: 'profile money' }).count()).toBe(1)
    expect(await page.getByText('No two tools in this scope read alike').count()).toBe(1)
    await context.close()
  })

  it('the approval review shows what the tool costs and what it reads like; over the ceiling it asks, and the crossing is recorded', async () => {
    const { context, page } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/settings')
    await page.getByLabel('Description-overlap ceiling (max_description_overlap)').fill('0.7')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await eventually(() => page.getByRole('status').textContent()).toContain('Saved and recorded.')
    expect(readSettings(d.db).maxDescriptionOverlap).toBe(0.7)
    await visit(page, '/servers/wiki')
    await page.getByRole('row', { name: /search_notes/ }).getByRole('button', { name: 'Review & approve' }).click()
    const review = page.getByTestId('review-wiki:search_notes')
    await eventually(() => review.textContent()).toMatch(/Costs \d+ tokens on every tools\/list/)
    expect(await review.getByRole('list', { name: 'Tools that read like wiki:search_notes' }).textContent()).toContain('wiki:lookup_notes')
    expect(await review.getByRole('alert').textContent()).toContain('Over the description-overlap ceiling')
    await page.getByRole('button', { name: /anyway \(over the overlap ceiling\)/ }).click()
    await eventually(() => d.db.select().from(activity).where(eq(activity.type, 'surface.over_ceiling')).all().length).toBeGreaterThan(0)
    expect(surfaceReport(d.db, { kind: 'catalog' }).catalog.map((t) => t.id)).toContain('wiki:search_notes')
    await visit(page, '/')
    await eventually(() => page.getByTestId('over-ceiling-catalog').textContent()).toMatch(/reads like .*> 0\.7/)
    await page.getByRole('link', { name: 'See the surface of the whole catalog' }).click()
    await eventually(() => page.getByRole('row', { name: /the whole catalog/ }).textContent()).toContain('over the ceiling')
    await screenshot(page, 'surface-over-ceiling')
    await context.close()
  })
})
