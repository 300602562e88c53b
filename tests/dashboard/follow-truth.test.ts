// Issue 26 §6: after every dashboard action the page shows the new state, or says the action is
// under way until it lands — never a bare "Done" beside the old state. Each kind of action is
// clicked in Chromium and the changed state is read off the page without a reload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { servers } from '@/db/schema'
import { tokenByName } from '@/db/queries/access'
import { addServer } from '@/lib/admin/upstreams'
import { connectionState, runtimeEnv, stdioFixture, waitFor } from '@/tests/upstream/harness'
import { clickConfirmed, eventually, signedIn, startDashboard, visit, type Dashboard } from './harness'

const serverRow = (d: Dashboard, name: string) => d.db.select().from(servers).where(eq(servers.name, name)).get()!

/** Every navigation the page makes by itself (a reload would hide a page that does not follow). */
function countLoads(page: Page): () => number {
  let loads = 0
  page.on('load', () => { loads++ })
  return () => loads
}

describe('screens follow the truth (demo state, no runtime)', () => {
  let d: Dashboard
  beforeAll(async () => { d = await startDashboard() })
  afterAll(async () => { await d?.stop() })

  it('approving a tool: its row reads approved, by whom, as the action returns', async () => {
    const { page, context } = await signedIn(d)
    // docs has no transport: nothing re-renders the page on a timer, only the action can
    await visit(page, '/servers/docs')
    const loads = countLoads(page)
    const row = page.getByTestId('tool-docs:lookup')
    expect(await row.textContent()).toContain('awaiting approval')
    await row.getByRole('button', { name: 'Review & approve' }).click()
    await page.getByRole('button', { name: /^Approve this definition/ }).click()
    // the row's own action becomes Block once the approval is shown
    await row.getByRole('button', { name: 'Block lookup' }).waitFor({ timeout: 20_000 })
    expect(await row.textContent()).not.toContain('awaiting approval')
    expect(await row.textContent()).toContain('approved by break-glass')
    expect(loads()).toBe(0)
    await context.close()
  })

  it('a token\'s scope change: its row names the new servers as the save returns', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/tokens')
    const row = page.getByTestId('token-notes-bot')
    expect(await row.textContent()).toContain('servers: notes')
    await row.getByRole('button', { name: 'Edit scope and expiry of token notes-bot' }).click()
    await row.getByRole('group', { name: 'Allowed servers' }).getByLabel('billing').check()
    await row.getByRole('button', { name: 'Save scope of token notes-bot' }).click()
    await eventually(() => row.getByText('servers: notes, billing').count()).toBe(1)
    expect(tokenByName(d.db, 'notes-bot')?.allowedServers).toEqual(['notes', 'billing'])
    await context.close()
  })

  it('restart and inspect say they are under way until the runtime reports (here it never does: no runtime runs)', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/servers')
    const slack = page.getByTestId('server-slack')
    await slack.getByRole('button', { name: 'Restart slack' }).click()
    await eventually(() => slack.getByTestId('pending-action').textContent()).toMatch(/^Reconnecting…/)
    expect(await slack.getByRole('button', { name: 'Restart slack' }).count()).toBe(0)
    // the truth, after a reload too: asked for, not landed
    await visit(page, '/servers/slack')
    expect(await page.getByTestId('pending-action').textContent()).toMatch(/^Reconnecting…/)
    // nothing to click twice while it is under way
    expect(await page.getByRole('button', { name: 'Restart' }).count()).toBe(0)

    await visit(page, '/servers/github')
    await clickConfirmed(page, 'Inspect (list its tools)')
    await eventually(() => page.getByTestId('pending-action').textContent()).toMatch(/^Inspecting…/)
    expect(await page.getByRole('button', { name: /^Inspect/ }).count()).toBe(0)
    expect(serverRow(d, 'github').inspectRequestedAt).toBeGreaterThan(0)

    // a preflight row's Restart: while the reconnect is awaited, no fix on the page can be pressed
    await visit(page, '/preflight?id=slack:post_message&run=1')
    const restart = page.getByTestId('row-slack:post_message').getByRole('button', { name: /Restart/ })
    await restart.click()
    await eventually(() => page.getByRole('status').filter({ hasText: 'Reconnecting…' }).count()).toBe(1)
    expect(await restart.isDisabled()).toBe(true)
    await context.close()
  })

  it('releasing a server: the page reads released, its tools served, as the action returns', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/servers/github')
    expect(await page.getByRole('heading', { name: /^Quarantined: inspect, review, then release/ }).count()).toBe(1)
    await page.getByRole('button', { name: 'Release github' }).click()
    await eventually(() => page.getByRole('heading', { name: /^Quarantined/ }).count()).toBe(0)
    expect(await page.getByTestId('tool-github:list_issues').getAttribute('data-status')).toBe('callable')
    expect(await page.getByText('Released by break-glass').count()).toBe(1)
    expect(serverRow(d, 'github').quarantined).toBe(false)
    await context.close()
  })
})

describe('screens follow the truth (with the runtime)', () => {
  let d: Dashboard
  const fx = stdioFixture({ tools: [{ name: 'open_vault', description: 'Open the vault.' }] })
  const crashing = stdioFixture({ mode: 'crash', tools: [{ name: 'read_ledger', description: 'Read the ledger.' }] })
  beforeAll(async () => {
    d = await startDashboard({ servers: [] }, runtimeEnv)
    await addServer(d.db, { name: 'vault', transport: fx.transport, trusted: false }, { actor: 'test' })
    await addServer(d.db, { name: 'ledger', transport: crashing.transport, trusted: false }, { actor: 'test' })
    await addServer(d.db, { name: 'ghost', transport: { command: '/nonexistent/toolgate-ghost-server' }, trusted: false }, { actor: 'test' })
    await addServer(d.db, { name: 'bank', transport: fx.transport, trusted: true }, { actor: 'test' })
    await waitFor('bank ready', () => connectionState(d.db, 'bank')?.state === 'ready')
  })
  afterAll(async () => { await d?.stop() })

  it('an inspection lists the tools on the page by itself once the runtime has; a restart shows connected again', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/servers/vault')
    const loads = countLoads(page)
    expect(await page.getByText('open_vault').count()).toBe(0)
    await clickConfirmed(page, 'Inspect (list its tools)')
    // no reload: the tools arrive, and the pending note goes
    await eventually(() => page.getByText('open_vault', { exact: true }).count()).toBeGreaterThan(0)
    await eventually(() => page.getByTestId('pending-action').count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Inspect again' }).count()).toBe(1)
    expect(loads()).toBe(0)

    await visit(page, '/servers/bank')
    const before = serverRow(d, 'bank').restartRequestedAt
    await page.getByRole('button', { name: 'Restart' }).click()
    const asked = await waitFor('the restart asked for', () => (serverRow(d, 'bank').restartRequestedAt ?? 0) > (before ?? 0) && serverRow(d, 'bank').restartRequestedAt) as number
    // reconnected: the card shows a connection reported after the restart, connected, with no pending note, without a reload
    await eventually(async () => Number(await page.getByTestId('connection-reported').getAttribute('data-at'))).toBeGreaterThan(asked)
    expect(await page.getByTestId('pending-action').count()).toBe(0)
    await eventually(() => page.getByRole('heading', { name: 'Connection health' }).locator('..').getByText('connected', { exact: true }).count()).toBe(1)
    expect(connectionState(d.db, 'bank')?.state).toBe('ready')
    await context.close()
  })

  it('an inspection that fails says so, why and what to do, instead of "Inspecting…"; inspecting again after the fix lists the tools', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/servers/ghost')
    await clickConfirmed(page, 'Inspect (list its tools)')
    await eventually(() => page.getByTestId('inspection-failed').count()).toBe(1)
    expect(await page.getByTestId('pending-action').count()).toBe(0)
    expect(await page.getByTestId('inspection-failed').textContent()).toContain('ENOENT')
    expect(await page.getByTestId('inspection-fix').textContent()).toMatch(/^Its command was not found on this machine/)
    // the truth after a reload too, with the way to try again
    await visit(page, '/servers/ghost')
    await eventually(() => page.getByTestId('inspection-failed').count()).toBe(1) // the quarantine card streams in
    expect(await page.getByRole('button', { name: 'Inspect again' }).count()).toBe(1)

    // a server that dies while starting: the failure points at its log, which has what it printed
    await visit(page, '/servers/ledger')
    await clickConfirmed(page, 'Inspect (list its tools)')
    await eventually(() => page.getByTestId('inspection-failed').count()).toBe(1)
    expect(await page.getByTestId('inspection-fix').textContent()).toMatch(/^Its log shows what it printed/)
    expect(serverRow(d, 'ledger').inspectError).toBeTruthy()
    // fixed: inspecting again lists its tools and the failure goes, without a reload
    crashing.set({ tools: [{ name: 'read_ledger', description: 'Read the ledger.' }] })
    const loads = countLoads(page)
    await clickConfirmed(page, 'Inspect again')
    await eventually(() => page.getByText('read_ledger', { exact: true }).count()).toBeGreaterThan(0)
    await eventually(() => page.getByTestId('inspection-failed').count()).toBe(0)
    expect(await page.getByTestId('pending-action').count()).toBe(0)
    expect(loads()).toBe(0)
    await context.close()
  })
})
