import { execFileSync, spawnSync } from 'node:child_process'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { screenshot, signedIn, visit, startDashboard, type Dashboard, eventually } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

const NOTES_BOT = 'tg_at_demo_notes_bot_00' // the demo state's token "notes-bot" (allowed: notes)
// the two values that are per-request by nature: when it was checked and the record's id
const normalize = (text: string) => text.replace(/"checked_at":"[^"]+"/g, '"checked_at":"<t>"').replace(/"request_id":"[^"]+"/g, '"request_id":"<id>"')

async function paneBytes(page: Page, shape: 'Shape A' | 'Shape B', part: 'request' | 'response'): Promise<string> {
  const pre = page.getByTestId(`preview-${shape}`).locator('pre[data-raw]').nth(part === 'request' ? 0 : 1)
  await pre.waitFor({ state: 'attached' })
  return (await pre.getAttribute('data-raw'))!
}

/** What a real client gets from /mcp for the same request bytes (and the token the preview stood in for). */
async function fromMcp(page: Page, shape: 'Shape A' | 'Shape B', headers: Record<string, string>): Promise<string> {
  const body = await paneBytes(page, shape, 'request')
  const res = await fetch(`${d.server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${NOTES_BOT}`, ...headers }, body })
  return res.text()
}

describe('live _meta preview', () => {
  it('as the operator (no token) says plainly that /mcp answers a client without a token 401, instead of two 401 exchanges', async () => {
    const { page, context } = await signedIn(d)
    await page.goto('/preflight?id=notes:read_note')
    await page.getByTestId('preview-refused').waitFor()
    expect(await page.getByTestId('preview-refused').textContent()).toContain('An MCP client without an agent token is answered 401 (no anonymous profile is set)')
    expect(await page.getByTestId('preview-Shape A').count()).toBe(0)
    expect(await page.getByTestId('preview-Shape B').count()).toBe(0)
    // and what it says is what /mcp does
    expect((await fetch(`${d.server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })).status).toBe(401)
    await context.close()
  })

  it('is byte-for-byte what /mcp answers, on both envelopes, and is never recorded', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/preflight?id=notes:read_note&id=notes:export_notes&id=jira:create_ticket&token=notes-bot')
    const records = listActivity(d.db, { limit: 1000 }).length

    // 2026-07-28
    const modernA = await paneBytes(page, 'Shape A', 'response')
    expect(JSON.parse(modernA).result._meta['app.mcpproxy/required-tools'].verdict).toBe('unknown_ids') // jira is out of the token's scope
    expect(normalize(modernA)).toBe(normalize(await fromMcp(page, 'Shape A', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' })))
    const modernB = await paneBytes(page, 'Shape B', 'response')
    expect(normalize(modernB)).toBe(normalize(await fromMcp(page, 'Shape B', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/resolve' })))
    await screenshot(page, 'preflight-preview-modern')

    // Shape B for a withheld tool: the -32602 it would get
    await page.getByLabel('Shape B resolves').selectOption('notes:export_notes')
    await eventually(async () => JSON.parse(await paneBytes(page, 'Shape B', 'response')).error?.code).toBe(-32602)
    expect(normalize(await paneBytes(page, 'Shape B', 'response'))).toBe(normalize(await fromMcp(page, 'Shape B', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/resolve' })))

    // 2025-11-25
    await page.getByLabel('2025-11-25').check()
    await eventually(async () => JSON.parse(await paneBytes(page, 'Shape A', 'request')).params._meta['io.modelcontextprotocol/protocolVersion']).toBeUndefined()
    const legacyA = await paneBytes(page, 'Shape A', 'response')
    expect(normalize(legacyA)).toBe(normalize(await fromMcp(page, 'Shape A', { 'mcp-protocol-version': '2025-11-25' })))

    // a filter change updates the preview (debounced) with the same evaluator
    await page.getByLabel(/Read-only tools only/).check()
    await eventually(async () => normalize(await paneBytes(page, 'Shape A', 'request'))).toContain('"policy":{"read_only_only":true}')
    expect(normalize(await paneBytes(page, 'Shape A', 'response'))).toBe(normalize(await fromMcp(page, 'Shape A', { 'mcp-protocol-version': '2025-11-25' })))

    // no preview was recorded: the only new records are the 4 checks this test made on /mcp itself
    // (the -32602 resolve evaluates nothing, so it records nothing)
    expect(listActivity(d.db, { limit: 1000 }).length).toBe(records + 4)
    expect(listActivity(d.db, { limit: 1000 }).filter((r) => r.surface?.startsWith('mcp-')).length).toBe(4)
    await context.close()
  })

  it('re-evaluates after a fix, says it is unrecorded, and copies as curl and as CLI that really run', async () => {
    const { page, context } = await signedIn(d)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await visit(page, '/preflight?id=notes:export_notes&token=notes-bot')
    const facet = async () => JSON.parse(await paneBytes(page, 'Shape A', 'response')).result._meta['app.mcpproxy/required-tools']
    await eventually(async () => (await facet()).verdict).toBe('blocked')
    expect(await page.getByText('unrecorded preview').count()).toBe(1)
    expect(await page.getByText(/the activity log has no record of it/).count()).toBe(1)

    // copy as curl: the command, run in a shell with the token in the environment, gets the same verdict
    await page.getByRole('button', { name: 'Copy as curl: Shape A request' }).click()
    const curl: string = await page.evaluate(() => navigator.clipboard.readText())
    expect(curl).toContain(`curl -sS '${d.server.url}/mcp'`)
    expect(curl).toContain('Authorization: Bearer $TOOLGATE_AGENT_TOKEN')
    const viaCurl = JSON.parse(execFileSync('bash', ['-c', curl], { env: { ...process.env, TOOLGATE_AGENT_TOKEN: NOTES_BOT }, encoding: 'utf8' }))
    expect(viaCurl.result._meta['app.mcpproxy/required-tools'].verdict).toBe('blocked')
    await page.getByRole('button', { name: 'Copy as CLI: Shape A check' }).click()
    const cli: string = await page.evaluate(() => navigator.clipboard.readText())
    expect(cli).toContain(`npx toolgate tools preflight --in-band --url '${d.server.url}/mcp' -o json -- 'notes:export_notes'`)
    // run in a shell from the project, it gets the same verdict (exit 1: blocked)
    const viaCli = spawnSync('bash', ['-c', cli], { cwd: path.resolve(import.meta.dirname, '..', '..'), env: { ...process.env, TOOLGATE_AGENT_TOKEN: NOTES_BOT }, encoding: 'utf8' })
    expect(JSON.parse(viaCli.stdout).verdict, viaCli.stderr).toBe('blocked')

    // fix the tool from its row: the preview follows without touching the form
    await page.getByRole('button', { name: 'Run preflight' }).click()
    await page.getByTestId('row-notes:export_notes').getByRole('button', { name: /Review & approve/ }).click()
    await page.getByRole('button', { name: 'Approve this definition' }).click()
    await eventually(() => page.getByTestId('row-notes:export_notes').getAttribute('data-status')).toBe('ready')
    await eventually(async () => (await facet()).verdict).toBe('ready')
    await screenshot(page, 'preflight-preview-after-fix')
    await context.close()
  })
})
