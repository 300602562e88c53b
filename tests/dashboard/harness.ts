import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Request } from 'playwright-core'
import { expect } from 'vitest'
import type { Db } from '@/db/client'
import type { StateFileInput } from '@/lib/schemas/state'
import { demoStateFile, freshDb, load } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { SESSION_KEY_HEADER } from '@/lib/dashboard/session-cookie'

export const OPERATOR_KEY = 'tg_op_dashboard_test_key_0123456789'
export const CHROMIUM = '/usr/bin/chromium'
export const SCREENSHOTS = path.resolve(__dirname, '..', '..', 'test-results', 'screenshots')

export type State = Omit<StateFileInput, 'version'>
export const demoState = (): State => JSON.parse(readFileSync(demoStateFile(), 'utf8'))

export interface Dashboard { db: Db; file: string; server: RunningServer; browser: Browser; stop: () => Promise<void> }

/**
 * Debian's Chromium driven by playwright-core. A missing browser is a failure with the fix in
 * the message — never a skip, never a download.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's package (apt-get install -y chromium). Browser tests never download a browser.`)
  }
  // launch() gives every run a fresh temporary profile (user-data-dir)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/** A temp database with `state`, the real app on loopback (next start) and a browser. */
export async function startDashboard(state: State = demoState(), env: Record<string, string> = {}): Promise<Dashboard> {
  const { db, file } = freshDb()
  await load(db, state)
  const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: OPERATOR_KEY, ...env })
  let browser: Browser
  try {
    browser = await launchChromium()
  } catch (e) {
    await server.stop()
    throw e
  }
  return { db, file, server, browser, stop: async () => { await browser.close(); await server.stop() } }
}

/** A browser context signed in through the real sign-in form. */
export async function signedIn(d: Dashboard, viewport = { width: 1280, height: 900 }, baseURL = d.server.url): Promise<{ context: BrowserContext; page: Page }> {
  const context = await d.browser.newContext({ viewport, baseURL })
  const page = await context.newPage()
  await page.goto('/login')
  await page.getByLabel('Break-glass key', { exact: true }).fill(OPERATOR_KEY)
  await page.getByRole('button', { name: 'Use the break-glass key' }).click()
  await page.waitForURL((u) => u.pathname === '/')
  return { context, page }
}

/** A browser context signed in as a person, through the sign-in form's password fields. */
export async function signedInWithPassword(d: Dashboard, login: string, password: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await d.browser.newContext({ baseURL: d.server.url })
  const page = await context.newPage()
  await page.goto('/login')
  await page.getByLabel('Username or e-mail').fill(login)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL((u) => u.pathname === '/', { timeout: 20_000 })
  return { context, page }
}

/** What a signed-in page sends with its fetches: the context's cookies and the session key from the page's localStorage. */
export async function sessionHeaders(context: BrowserContext, page: Page): Promise<Record<string, string>> {
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
  const key = await page.evaluate(() => localStorage.getItem('toolgate.session-key'))
  if (!key) throw new Error('the page holds no session key: is it signed in, on toolgate\'s origin?')
  return { cookie, [SESSION_KEY_HEADER]: key }
}

/** Capture a real server-action call made by the signed-in UI, to replay it over plain HTTP. */
export function captureAction(page: Page): Promise<Request> {
  return page.waitForRequest((r) => r.method() === 'POST' && r.headers()['next-action'] !== undefined)
}

/**
 * Replay a captured server action, its body possibly rewritten; the cookie is ours to choose,
 * and `session` (sessionHeaders of another person) sends it as someone else.
 */
export async function replay(req: Request, opts: { cookie?: string; body?: string; session?: Record<string, string> }): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { ...req.headers() }
  // the body may be rewritten: let fetch compute its length
  delete headers['content-length']
  delete headers.cookie
  if (opts.cookie) headers.cookie = opts.cookie
  Object.assign(headers, opts.session)
  const res = await fetch(req.url(), { method: 'POST', headers, body: opts.body ?? req.postData() ?? '', redirect: 'manual' })
  return { status: res.status, text: await res.text() }
}

/**
 * page.goto for a dashboard page. A browser navigation cannot carry the session key, so it
 * first gets a data-free shell, which then fetches the page with the key: wait for that.
 */
export async function visit(page: Page, path: string) {
  const res = await page.goto(path)
  await page.locator('[data-session-bootstrap]').waitFor({ state: 'detached', timeout: 20_000 })
  // then the route's own loading state, shown while the page reads state, gives way to the page
  await page.locator('[role="status"][aria-label="Loading"]').waitFor({ state: 'detached', timeout: 20_000 })
  return res
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/**
 * Click a drastic ActionButton and then its inline confirmation (components/action-button.tsx):
 * `name` is the button's accessible name, which its confirming button repeats.
 */
export async function clickConfirmed(scope: Page | Locator, name: string): Promise<void> {
  await scope.getByRole('button', { name, exact: true }).click()
  await scope.getByRole('alertdialog', { name: `Confirm: ${name}` }).getByRole('button', { name, exact: true }).click()
}

/** expect.poll with room for a loaded 2-core machine (vitest's default gives up after 1 s). */
export const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 })

// axe-core, run inside the page as a browser extension would: WCAG 2 A and AA rules
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Violation { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

/** axe-core's serious and critical findings on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> } }).axe
    return (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ')}`)
}
