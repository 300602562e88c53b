import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { screenshot, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

describe('preflight page', () => {
  it('shows unknown_ids with one row per id, approves a pending tool in place and tells the story on the timeline', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/preflight')
    const ids = page.getByRole('combobox', { name: 'Tool ids' })
    for (const id of ['notes:export_notes', 'github:list_issues', 'notes:nope_tool']) {
      await ids.fill(id)
      await ids.press('Enter')
    }
    await page.getByRole('button', { name: 'Run preflight' }).click()
    const badge = page.getByRole('status', { name: /verdict/ })
    await eventually(() => badge.getAttribute('aria-label')).toBe('verdict unknown_ids, exit code 12')
    const row = (id: string) => page.getByTestId(`row-${id}`)
    expect(await row('notes:export_notes').getAttribute('data-reason')).toBe('tool_pending_approval')
    expect(await row('github:list_issues').getAttribute('data-reason')).toBe('server_quarantined')
    expect(await row('notes:nope_tool').getAttribute('data-reason')).toBe('not_found')
    // the set takes its worst class; beside it, every class, so the unknown id hides no blocked tool
    expect(await page.getByTestId('verdict-counts').textContent()).toBe('1 unknown id · 2 blocked')
    await screenshot(page, 'preflight-unknown-ids')

    const checkRequest = (await page.getByRole('link', { name: /^req_/ }).textContent())!
    const loads = await page.evaluate(() => performance.getEntriesByType('navigation').length)
    await row('notes:export_notes').getByRole('button', { name: 'Review & approve' }).click()
    expect(await page.getByLabel('Definition of notes:export_notes').textContent()).toContain('"name": "notes:export_notes"')
    await page.getByRole('button', { name: 'Approve this definition' }).click()
    await eventually(() => row('notes:export_notes').getAttribute('data-status')).toBe('ready')
    // same document: the row turned ready without a reload
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(loads)
    expect(await page.getByRole('status').filter({ hasText: 'approved notes:export_notes' }).count()).toBe(1)

    // on the record: the check and the approval, under the check's request id
    const story = listActivity(d.db, { requestId: checkRequest, limit: 10 }).map((r) => [r.type, r.verdict])
    expect(story).toEqual([['preflight', 'unknown_ids'], ['tool.approved', null], ['preflight', 'unknown_ids']])

    await visit(page, `/activity?request_id=${checkRequest}`)
    await eventually(() => page.getByTestId('activity-record').count()).toBe(3)
    const types = await page.getByTestId('activity-record').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))
    expect(types).toEqual(['preflight', 'tool.approved', 'preflight'])
    await screenshot(page, 'activity-request')
    await context.close()
  })
})
