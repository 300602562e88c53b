import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { listActivity } from '@/db/queries/activity'
import { clickConfirmed, screenshot, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

const restCheck = (token: string, ids: string[]) => fetch(`${d.server.url}/api/v1/preflight`, {
  method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ tools: ids.map((id) => ({ id })) }),
})

describe('overview', () => {
  it('groups blocked agents by token, shows every kind of problem, and drops what was fixed', async () => {
    // an agent is refused: nightly asks for a tool on a disabled server and one outside its profile
    expect((await restCheck('tg_at_demo_nightly_0000', ['legacy-ci:run_job', 'billing:get_invoice'])).status).toBe(200)
    expect((await restCheck('tg_at_demo_nightly_0000', ['legacy-ci:run_job'])).status).toBe(200)
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    // the operator's own dashboard check as a token is not an agent being blocked
    await visit(page, '/preflight?id=notes:export_notes&token=notes-bot&run=1')
    await eventually(() => page.getByTestId('row-notes:export_notes').getAttribute('data-reason')).toBe('tool_pending_approval')

    await visit(page, '/')
    const nightly = page.getByTestId('agent-nightly')
    expect(await nightly.textContent()).toContain('2 recent checks refused')
    // grouped by cause, each group naming its ids
    expect(await nightly.locator('[data-reason=server_disabled]').textContent()).toContain('legacy-ci:run_job')
    expect(await nightly.locator('[data-reason=server_not_in_scope]').textContent()).toContain('billing:get_invoice')
    expect(await page.getByTestId('agent-notes-bot').count()).toBe(0)
    for (const heading of [/Disabled servers \(1\)/, /Tools blocked by an operator \(1\)/, /Servers not connected yet \(\d+\)/, /Quarantined servers \(1\)/]) {
      expect(await page.getByRole('heading', { name: heading }).count(), String(heading)).toBe(1)
    }
    // a quarantined server is not shown as connected
    expect(await page.getByTestId('server-item-github').textContent()).toContain('not connected (quarantined)')
    await screenshot(page, 'overview-before-fix')

    // fix it from the Overview: the disabled server's item and the agent's refusal both clear
    await page.getByTestId('server-item-legacy-ci').getByRole('button', { name: 'Enable legacy-ci' }).click()
    await eventually(() => page.getByTestId('server-item-legacy-ci').count()).toBe(0)
    await eventually(() => page.getByTestId('agent-nightly').locator('[data-reason=server_disabled]').count()).toBe(0)
    // billing is still outside nightly's profile: that part of the story stays
    expect(await page.getByTestId('agent-nightly').locator('[data-reason=server_not_in_scope]').count()).toBe(1)

    // a managed server that is not connected yet can be asked to reconnect; the request is on the record
    await page.getByTestId('server-item-notebook').getByRole('button', { name: 'Restart notebook' }).click()
    await eventually(() => listActivity(d.db, { type: 'server.restart_requested' }).length).toBe(1)
    expect(await page.locator('main [role=alert]').count()).toBe(0)

    // a token whose pinned profile is deleted is listed, with the way to re-pin it
    await visit(page, '/tokens')
    await clickConfirmed(page, 'Delete profile ops')
    await eventually(() => page.getByTestId('profile-ops').count()).toBe(0)
    await visit(page, '/')
    expect(await page.getByTestId('dangling-nightly').textContent()).toContain('pinned to “ops”, which no longer exists')
    await screenshot(page, 'overview-after-fix')
    await context.close()
  })

  it('an agent whose calls fail is blocked now until a call succeeds, and a server with nothing behind it is never shown connected', async () => {
    // the runtime is off in this test: notes' call cannot reach its upstream, whatever its state file says
    const mcp = new Client({ name: 'overview-calls', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${d.server.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer tg_at_demo_agent_0000000' } } }))
    const r = await mcp.request({ method: 'tools/call', params: { name: 'notes:read_note', arguments: { id: 'n1' } } }, CallToolResultSchema, { timeout: 30_000 })
    expect(r.isError).toBe(true)
    await mcp.close()
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/')
    const call = page.getByTestId('agent-demo-agent-call-notes:read_note')
    await eventually(() => call.count()).toBe(1)
    expect(await call.textContent()).toMatch(/notes:read_note call (refused|failed)/)
    expect(await page.getByTestId('agent-demo-agent').textContent()).toContain('1 tool whose latest call failed')
    // docs has no command or URL: its state file says ready, but it is listed as unhealthy with what is true
    const docs = page.getByTestId('server-item-docs')
    expect(await docs.textContent()).toContain('nothing to call (no transport)')
    expect(await docs.textContent()).toContain('toolgate does not run docs: it has no transport')
    await context.close()
  })

  it('follows the state by itself: an agent refused while the page is open appears on it without a reload', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/')
    const bot = page.getByTestId('agent-notes-bot')
    expect(await bot.count()).toBe(0)
    // a reload would be a new document: this mark stays only if the page was never reloaded
    await page.evaluate(() => { (window as unknown as { loadedOnce: boolean }).loadedOnce = true })
    // notes-bot reaches notes only: github is outside its scope
    expect((await restCheck('tg_at_demo_notes_bot_00', ['github:list_issues'])).status).toBe(200)
    await expect.poll(() => bot.count(), { timeout: 30_000 }).toBe(1)
    expect(await bot.locator('[data-reason=server_not_in_scope]').count()).toBe(1)
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true)
    await context.close()
  })
  it('an agent blocked for several causes shows each with its own fix, and each fix link leads to where it is done', async () => {
    // notes-bot asks for github (outside its allowed servers) and export_notes (waiting for approval)
    expect((await restCheck('tg_at_demo_notes_bot_00', ['github:list_issues', 'notes:export_notes'])).status).toBe(200)
    const { page, context } = await signedIn(d, { width: 1440, height: 900 })
    await visit(page, '/')
    const bot = page.getByTestId('agent-notes-bot')
    await eventually(() => bot.locator('[data-reason=tool_pending_approval]').count()).toBe(1)
    const scope = bot.locator('[data-reason=server_not_in_scope]').getByRole('link', { name: 'Edit token notes-bot (1 server_not_in_scope of notes-bot)' })
    const approve = bot.locator('[data-reason=tool_pending_approval]').getByRole('link', { name: 'Review & approve (1 tool_pending_approval of notes-bot)' })
    expect(await scope.textContent()).toBe('→ Edit token notes-bot')
    expect(await scope.getAttribute('href')).toBe('/tokens/notes-bot')
    expect(await approve.textContent()).toBe('→ Review & approve')
    await screenshot(page, 'overview-causes-each-fixed')

    // the approval's link is the agent's check of that cause's ids alone, where the row approves
    await approve.click()
    await page.waitForURL(/\/preflight\?/)
    const row = page.getByTestId('row-notes:export_notes')
    await eventually(() => row.getAttribute('data-reason')).toBe('tool_pending_approval')
    expect(await page.getByTestId('row-github:list_issues').count()).toBe(0)
    await row.getByRole('button', { name: 'Review & approve' }).click()
    await page.getByRole('button', { name: 'Approve this definition' }).click()
    await eventually(() => row.getAttribute('data-status')).toBe('ready')

    // back on the Overview the approved cause is gone, and the other keeps its own fix
    await visit(page, '/')
    await eventually(() => bot.locator('[data-reason=tool_pending_approval]').count()).toBe(0)
    expect(await scope.count()).toBe(1)
    await context.close()
  })
})
