import { spawn } from 'node:child_process'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { listActivity } from '@/db/queries/activity'
import { readLogs } from '@/db/queries/upstream'
import { serverConnections } from '@/db/schema'
import { DEMO_AGENT_TOKEN } from '@/lib/state/demo'
import { eventually, launchChromium, OPERATOR_KEY, screenshot, signedIn, visit, type Dashboard } from '@/tests/dashboard/harness'
import { tempDbFile } from '@/tests/helpers/db'
import { startServer } from '@/tests/helpers/server'

// `toolgate serve` as `npm start` runs it on a fresh machine: demo mode, an empty database, the
// runtime on. The demo's jira must log in end to end and its slack must come back on Restart.
let d: Dashboard
let db: Db
beforeAll(async () => {
  const file = tempDbFile()
  const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: OPERATOR_KEY, TOOLGATE_RUNTIME: 'on' }, { demo: true })
  db = openDb(file) // after the server created and filled it
  db.$client.pragma('busy_timeout = 5000')
  const browser = await launchChromium().catch(async (e: unknown) => {
    await server.stop()
    throw e
  })
  d = { db, file, server, browser, stop: async () => { await browser.close(); await server.stop() } }
})
afterAll(async () => {
  await d?.stop()
})

const connection = (server: string) => db.select().from(serverConnections).where(eq(serverConnections.serverName, server)).get()
/** Where a demo server's transport points this run: jira's MCP endpoint, slack's workspace (its --workspace). */
const transportUrl = (server: 'jira' | 'slack') => String(db.$client.prepare(`select json_extract(transport, '${server === 'jira' ? '$.url' : '$.args[2]'}') from servers where name = ?`).pluck().get(server))

/** One tools/call through toolgate's /mcp as the demo agent, with the official SDK client. */
async function callThroughToolgate(tool: string, args: Record<string, unknown>) {
  const client = new Client({ name: 'demo-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${d.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${DEMO_AGENT_TOKEN}` } } }))
  try {
    return await client.callTool({ name: tool, arguments: args })
  } finally {
    await client.close()
  }
}

/** On the demo's consent page (the authorization server's own origin): a person approves. */
async function approveOnConsentPage(page: Page, name: string): Promise<void> {
  await eventually(() => new URL(page.url()).origin).not.toBe(d.server.url)
  // the demo's authorization server, on its own loopback port
  expect(new URL(page.url()).origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  await page.getByRole('heading', { name: 'Approve access?' }).waitFor()
  expect(await page.textContent('body')).toContain(transportUrl('jira'))
  await screenshot(page, name)
  await page.getByRole('button', { name: 'Approve' }).click()
}

/** `toolgate upstream login jira` against the running server: the URL it prints. */
async function cliLogin(): Promise<string> {
  const child = spawn(process.execPath, [path.resolve('bin/toolgate.mjs'), 'upstream', 'login', 'jira', '--db', d.file, '--url', d.server.url, '-o', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (c) => (out += c))
  child.stderr.on('data', (c) => (err += c))
  const code = await new Promise((r) => child.once('exit', r))
  expect(code, err).toBe(0)
  return JSON.parse(out).url
}

describe('the demo on a fresh machine (npm start)', () => {
  it('jira: Log in on its page goes to the demo consent page and back; jira turns ready and its tool is callable through /mcp', { timeout: 180_000 }, async () => {
    await eventually(() => connection('jira')?.state).toBe('pending_auth')
    const { page, context } = await signedIn(d)
    await visit(page, '/servers/jira')
    await page.getByRole('button', { name: 'Log in', exact: true }).click()
    await approveOnConsentPage(page, 'demo-jira-consent')
    // the callback sends the browser back to the page the login started from
    await eventually(() => new URL(page.url()).pathname).toBe('/servers/jira')
    await eventually(() => connection('jira')?.state).toBe('ready')
    // the page follows the connection by itself: no reload
    await page.getByText('connected', { exact: true }).waitFor({ timeout: 15_000 })
    await screenshot(page, 'demo-jira-ready')
    const result = await callThroughToolgate('jira:create_ticket', { summary: 'printer on fire' })
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false)
    expect(JSON.stringify(result.content)).toContain('Created ticket DEMO-')

    // the CLI's login: starting one drops the old token (jira asks for a login again), and the
    // preflight row's fix is the same real flow
    const printed = await cliLogin()
    expect(new URL(printed).pathname).toBe('/authorize')
    await eventually(() => connection('jira')?.state).toBe('pending_auth')
    await visit(page, '/preflight?id=jira:create_ticket')
    await page.getByRole('button', { name: 'Run preflight' }).click()
    const row = page.getByTestId('row-jira:create_ticket')
    await eventually(() => row.getAttribute('data-reason')).toBe('oauth_required')
    await row.getByRole('button', { name: 'Log in' }).click()
    await approveOnConsentPage(page, 'demo-jira-consent-from-preflight')
    await eventually(() => new URL(page.url()).pathname).toBe('/preflight')
    await eventually(() => connection('jira')?.state).toBe('ready')
    await page.getByRole('button', { name: 'Run preflight' }).click()
    await eventually(() => page.getByTestId('row-jira:create_ticket').getAttribute('data-status')).toBe('ready')

    // and the URL `toolgate upstream login jira` prints completes a login by itself
    await visit(page, await cliLogin())
    await approveOnConsentPage(page, 'demo-jira-consent-from-cli')
    await page.getByRole('heading', { name: 'Login complete' }).waitFor()
    // ready since this login completed (the connection from before it may still read ready
    // until the runtime has reconnected with the new token, and with it the agents' sessions)
    const completedAt = listActivity(db, { type: 'server.login_completed' }).find((r) => r.server === 'jira')!.at
    await eventually(() => { const c = connection('jira'); return c?.state === 'ready' && c.updatedAt > completedAt }).toBe(true)
    const again = await callThroughToolgate('jira:create_ticket', { summary: 'again' })
    expect(again.isError ?? false, JSON.stringify(again.content)).toBe(false)
    // no definition changed: the served tool is the one the demo state pinned
    expect(listActivity(db, { type: 'tool.changed' }).filter((r) => r.server === 'jira')).toEqual([])
    expect(listActivity(db, { type: 'server.login_completed' }).filter((r) => r.server === 'jira')).toHaveLength(3)
    await context.close()
  })

  it('slack: stays unhealthy through the runtime\'s own reconnects, saying why; Restart brings it back, on the record', { timeout: 120_000 }, async () => {
    await eventually(() => connection('slack')?.detail ?? '').toContain('slack is stuck')
    // reconnecting alone does not fix it
    await eventually(() => readLogs(db, 'slack', 100).filter((l) => l.line.startsWith('connecting (attempt')).length).toBeGreaterThanOrEqual(3)
    expect(connection('slack')?.state).toBe('error')

    const { page, context } = await signedIn(d)
    await visit(page, '/servers/slack')
    await page.getByText(/slack is stuck/).first().waitFor()
    // a stdio server: no login to offer, a restart starts a new process
    expect(await page.getByRole('button', { name: /Log in/ }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Restart', exact: true }).count()).toBe(1)
    // the same fix from a failed check: the page says the restart is under way (not "done" beside
    // the old failure), then checks again by itself once the runtime reports the new connection
    // each of the runtime's attempts passes through discovering (server_initializing) before it
    // fails again: the check is run again until it lands between attempts, as an operator would
    const row = page.getByTestId('row-slack:post_message')
    await expect.poll(async () => {
      await visit(page, '/preflight?id=slack:post_message&run=1')
      await page.locator('[data-testid="row-slack:post_message"][data-reason]').waitFor({ timeout: 20_000 })
      return row.getAttribute('data-reason')
    }, { timeout: 60_000, interval: 500 }).toBe('server_unhealthy')
    await row.getByRole('button', { name: 'Restart' }).click()
    await eventually(() => page.getByRole('status').filter({ hasText: 'Restart of slack asked for' }).count()).toBe(1)
    await eventually(() => page.getByRole('status').filter({ hasText: 'slack reported its new connection; the set was checked again' }).count()).toBe(1)
    expect(await row.getAttribute('data-status')).toBe('ready')
    expect(connection('slack')?.state).toBe('ready')
    await visit(page, '/servers/slack')
    await page.getByText('connected', { exact: true }).waitFor({ timeout: 15_000 })
    await screenshot(page, 'demo-slack-restarted')
    // on the record: the operator's restart, and the runtime reconnecting for it
    expect(listActivity(db, { type: 'server.restart_requested' }).filter((r) => r.server === 'slack')).toHaveLength(1)
    expect(readLogs(db, 'slack', 100).map((l) => l.line)).toContain('configuration changed or restart requested: reconnecting')
    expect(listActivity(db, { type: 'tool.changed' }).filter((r) => r.server === 'slack')).toEqual([])
    const result = await callThroughToolgate('slack:post_message', { channel: '#ops', text: 'back' })
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false)
    await context.close()
  })

  it('legacy-ci: Enable from a failed check says it is connecting, and checks again once the runtime reports, never beside the state from before', { timeout: 120_000 }, async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/preflight?id=legacy-ci:run_job&run=1')
    const row = page.getByTestId('row-legacy-ci:run_job')
    await eventually(() => row.getAttribute('data-reason')).toBe('server_disabled')
    await row.getByRole('button', { name: /Enable server/ }).click()
    await eventually(() => page.getByRole('status').filter({ hasText: 'Done: enabled server legacy-ci' }).first().textContent()).toContain('Connecting…')
    await eventually(() => page.getByRole('status').filter({ hasText: 'legacy-ci reported its new connection; the set was checked again' }).count()).toBe(1)
    expect(await row.getAttribute('data-status')).toBe('ready')
    expect(connection('legacy-ci')?.state).toBe('ready')
    await context.close()
  })

  it('stops the demo\'s services with the server', async () => {
    const urls = [transportUrl('jira'), `${transportUrl('slack')}/session`]
    for (const url of urls) expect((await fetch(url)).status).toBeTypeOf('number')
    await d.server.stop()
    for (const url of urls) await expect(fetch(url)).rejects.toThrow()
  })
})
