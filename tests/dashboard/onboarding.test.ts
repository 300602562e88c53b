import { execFileSync } from 'node:child_process'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentTokens } from '@/db/schema'
import { serverState } from '@/db/queries/servers'
import { tokenByName } from '@/db/queries/access'
import { connectionState, runtimeEnv, waitFor } from '@/tests/upstream/harness'
import { clickConfirmed, eventually, screenshot, signedIn, startDashboard, visit, type Dashboard } from './harness'

// Onboarding (issue 26, item 8) on an empty instance: the first-run checklist, adding a server
// from the dashboard (form and pasted mcpServers JSON, quarantined, then inspect and release),
// and the Connect page's snippets, whose plain-HTTP requests are run as shown, in both revisions.

let d: Dashboard
beforeAll(async () => { d = await startDashboard({ servers: [] }, runtimeEnv) })
afterAll(async () => { await d?.stop() })

const idOf = (name: string) => d.db.select({ id: agentTokens.id }).from(agentTokens).where(eq(agentTokens.name, name)).get()?.id

/** Run a shell snippet as an operator would paste it; every curl in it prints one JSON-RPC answer. */
const runSnippet = (text: string) => execFileSync('bash', ['-c', text.replace(/^curl -s /gm, 'curl -sS --max-time 30 ').replace(/\n\ncurl/g, '\necho\ncurl')], { encoding: 'utf8' })
  .trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))

describe('onboarding', () => {
  it('an empty instance shows the first-run checklist, never "every server is connected"', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/')
    expect(await page.getByText('every server is connected').count()).toBe(0)
    const list = page.getByLabel('First-run checklist')
    expect(await list.locator('[data-done="true"]').count()).toBe(0)
    expect(await list.textContent()).toContain('Add an MCP server')
    await screenshot(page, 'first-run')
    // the Tokens page says what a tokenless agent really gets
    await visit(page, '/tokens')
    expect(await page.getByText('an agent without one is refused (401)').count()).toBe(1)
    await context.close()
  })

  it('adds a server by form (errors name the field), quarantined; inspect and release it; imports pasted JSON entry by entry', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/setup')
    const form = page.getByRole('form', { name: 'Add a server' })
    await form.getByLabel('Name').fill('notes')
    await form.getByLabel('A URL (Streamable HTTP)').check()
    await form.getByLabel('URL', { exact: true }).fill('not a url')
    await form.getByRole('button', { name: 'Add server' }).click()
    await eventually(() => form.getByRole('alert').count()).toBe(1)
    expect(await form.getByRole('alert').textContent()).toContain('transport.url')
    expect(serverState(d.db, 'notes')).toBeUndefined()

    await form.getByLabel('A program (stdio)').check()
    await form.getByLabel('Command').fill(process.execPath)
    await form.getByLabel('Arguments (one per line)').fill('demo/upstreams/notes.mjs')
    await form.getByRole('button', { name: 'Add server' }).click()
    await eventually(() => page.getByRole('status').filter({ hasText: 'quarantined' }).count()).toBe(1)
    expect(serverState(d.db, 'notes')).toMatchObject({ quarantined: true, transport: { command: process.execPath, args: ['demo/upstreams/notes.mjs'] } })

    // pasted JSON: the good entry is added, the bad one is named with why
    await page.getByLabel(/The document/).fill(JSON.stringify({ mcpServers: { extra: { url: 'http://127.0.0.1:9/mcp' }, 'bad name!': { command: 'x' } } }))
    await page.getByRole('button', { name: 'Import servers' }).click()
    const refused = page.getByLabel('Not imported')
    await refused.waitFor()
    expect(await refused.textContent()).toContain('bad name!')
    expect(serverState(d.db, 'extra')?.quarantined).toBe(true)
    await screenshot(page, 'add-servers')

    // then Inspect, from the link the success names, and release
    await page.getByRole('link', { name: 'notes', exact: true }).click()
    await page.waitForURL((u) => u.pathname === '/servers/notes')
    await clickConfirmed(page, 'Inspect (list its tools)')
    await waitFor('notes inspected', () => serverState(d.db, 'notes')?.inspectedAt)
    await visit(page, '/servers/notes')
    expect(await page.getByLabel('Tools notes would expose').textContent()).toContain('read_note')
    await page.getByRole('button', { name: 'Release notes' }).click()
    await waitFor('notes released', () => serverState(d.db, 'notes')?.quarantined === false)
    await visit(page, '/')
    const list = page.getByLabel('First-run checklist')
    expect(await list.getByTestId('setup-add').getAttribute('data-done')).toBe('true')
    expect(await list.getByTestId('setup-release').getAttribute('data-done')).toBe('true')
    expect(await list.getByTestId('setup-token').getAttribute('data-done')).toBe('false')
    await context.close()
  })

  it('Connect a client: a token made there fills every snippet, and the plain-HTTP ones work as shown in both revisions', async () => {
    await waitFor('notes ready', () => connectionState(d.db, 'notes')?.state === 'ready')
    const { page, context } = await signedIn(d)
    await visit(page, '/connect')
    await page.getByLabel('New token\'s name').fill('laptop')
    await page.getByRole('button', { name: 'Create token and fill it in' }).click()
    await eventually(() => page.getByRole('status').filter({ hasText: 'laptop' }).count()).toBe(1)
    expect(tokenByName(d.db, 'laptop')?.allowedServers).toEqual(['*'])
    const text = (id: string) => page.getByTestId(`snippet-${id}`).locator('pre').textContent().then((t) => t!)
    const cursor = JSON.parse(await text('cursor'))
    const token = cursor.mcpServers.toolgate.headers.Authorization.replace('Bearer ', '')
    expect(token).toMatch(/^tg_at_/)
    expect(cursor.mcpServers.toolgate.url).toBe(`${d.server.url}/mcp`)
    for (const id of ['claude-desktop', 'claude-code', 'vscode', 'http-2025-11-25', 'http-2026-07-28']) expect(await text(id), id).toContain(token)
    await screenshot(page, 'connect')

    for (const rev of ['2025-11-25', '2026-07-28']) {
      const [list, call] = runSnippet(await text(`http-${rev}`))
      expect(list.result.tools.map((t: { name: string }) => t.name), rev).toContain('notes:read_note')
      // the example call (a tool that says it only reads: export_notes) reached the upstream: its
      // answer, not a gate's refusal or a protocol error
      expect(call.error, rev).toBeUndefined()
      expect(call.result.isError ?? false, rev).toBe(false)
      expect(call.result.content[0].text, rev).toContain('"welcome"')
    }
    // a 2026-07-28 tools/call without the Mcp-Name header the snippet carries is refused
    const modern = (await text('http-2026-07-28')).split('\n\n')[1].split('\n').filter((l) => !l.includes('Mcp-Name')).join('\n')
    const [refused] = runSnippet(modern)
    expect(refused.error.message).toMatch(/Mcp-Name/i)
    await context.close()
  })

  it('rotating a token gives it a new secret shown once; the old one is refused at once, the new one works', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/connect')
    await page.getByLabel('New token\'s name').fill('ci')
    await page.getByRole('button', { name: 'Create token and fill it in' }).click()
    await eventually(() => page.getByRole('status').filter({ hasText: 'ci' }).count()).toBe(1)
    const old = JSON.parse((await page.getByTestId('snippet-cursor').locator('pre').textContent())!).mcpServers.toolgate.headers.Authorization
    const check = (auth: string) => fetch(`${d.server.url}/api/v1/preflight`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ tools: [{ id: 'notes:read_note' }] }) }).then((r) => r.status)
    expect(await check(old)).toBe(200)
    const id = idOf('ci')
    await visit(page, '/tokens')
    await page.getByRole('button', { name: 'Rotate token ci' }).click()
    await page.getByRole('alertdialog', { name: 'Confirm rotating ci' }).getByRole('button', { name: 'Yes, rotate' }).click()
    const fresh = (await page.getByTestId('rotated-ci').textContent())!
    expect(fresh).toMatch(/^tg_at_/)
    expect(await check(old)).toBe(401)
    expect(await check(`Bearer ${fresh}`)).toBe(200)
    // the same token: its id (what its tasks and held calls belong to) and scope are kept
    expect(idOf('ci')).toEqual(id)
    expect(tokenByName(d.db, 'ci')?.allowedServers).toEqual(['*'])
    await context.close()
  })
})
