import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, signedIn, startDashboard, visit, type Dashboard } from '@/tests/dashboard/harness'

/**
 * Issue 22, Medium #11: another loopback port framed the signed-in dashboard with live buttons,
 * and no response carried a Content-Security-Policy, frame-ancestors, X-Frame-Options, nosniff
 * or Referrer-Policy.
 */

let d: Dashboard
let framer: Server
let framerUrl: string

beforeAll(async () => {
  d = await startDashboard()
  // a page on another loopback port that frames toolgate's
  framer = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '/'
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>framer</title><iframe name="victim" width="1000" height="700" src="${d.server.url}${target}"></iframe>`)
  })
  await new Promise<void>((r) => framer.listen(0, '127.0.0.1', r))
  framerUrl = `http://127.0.0.1:${(framer.address() as AddressInfo).port}/`
})
afterAll(async () => {
  if (framer) await new Promise((r) => framer.close(r))
  await d?.stop()
})

const hardening = { 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }

describe('security headers', () => {
  it('every surface answers with framing, sniffing and referrer rules and a CSP', async () => {
    const surfaces: [string, RequestInit][] = [
      ['/login', {}],
      ['/', {}],
      ['/no/such/page', {}],
      ['/api/dashboard/session', {}],
      ['/api/v1/whoami', { headers: { authorization: 'Bearer tg_at_demo_agent_0000000' } }],
      ['/api/v1/nothing', {}],
      ['/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: '{}' }],
      ['/api/upstream/oauth/callback', {}],
      ['/icon.svg', {}],
    ]
    for (const [path, init] of surfaces) {
      const res = await fetch(`${d.server.url}${path}`, { ...init, redirect: 'manual' })
      for (const [name, value] of Object.entries(hardening)) expect(res.headers.get(name), `${path} ${name}`).toBe(value)
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp, path).not.toContain('unsafe-eval')
    }
    // pages: scripts only with this response's nonce
    const page = await fetch(`${d.server.url}/login`)
    const csp = page.headers.get('content-security-policy')!
    const nonce = /script-src [^;]*'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1]
    expect(nonce, csp).toBeTruthy()
    expect(/script-src [^;]*'unsafe-inline'/.test(csp), csp).toBe(false)
    const html = await page.text()
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])
    expect(scripts.length).toBeGreaterThan(0)
    for (const s of scripts) expect(s, s).toContain(`nonce="${nonce}"`)
    const again = (await fetch(`${d.server.url}/login`)).headers.get('content-security-policy')!
    expect(again).not.toBe(csp) // a fresh nonce per response
  })

  it('a page on another loopback port that frames the signed-in dashboard gets a blank frame', async () => {
    const { context, page } = await signedIn(d)
    const refused: string[] = []
    page.on('console', (m) => { if (/frame-ancestors|X-Frame-Options/.test(m.text())) refused.push(m.text()) })
    // the top page's load waits for its frame's
    await page.goto(`${framerUrl}?src=/tokens`)
    const frame = page.frameLocator('iframe[name=victim]')
    expect(await frame.locator('main').count()).toBe(0)
    expect(await frame.getByRole('button').count()).toBe(0)
    await eventually(() => refused.length).toBeGreaterThan(0)
    // the same page, opened as itself, works
    await visit(page, '/tokens')
    expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(1)
    await context.close()
  })

  it('the dashboard works under its CSP: no violation on the main pages, and a button round trip', async () => {
    // checks for the Activity chart to draw (its bars are sized by style attributes)
    for (const id of ['notes:read_note', 'legacy-ci:run_job']) {
      const r = await fetch(`${d.server.url}/api/v1/preflight`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg_at_demo_nightly_0000' }, body: JSON.stringify({ tools: [{ id }] }) })
      expect(r.status).toBe(200)
    }
    const { context, page } = await signedIn(d)
    const violations: string[] = []
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(`${page.url()}: ${m.text()}`) })
    page.on('pageerror', (e) => violations.push(`${page.url()}: ${e.message}`))
    for (const path of ['/', '/preflight?id=notes:read_note&run=1', '/approvals', '/activity', '/servers', '/servers/notes', '/tokens', '/tokens/nightly', '/surface', '/settings', '/login', '/no/such/page']) {
      await visit(page, path)
      await page.waitForLoadState('load')
    }
    await visit(page, '/preflight?id=notes:read_note&run=1')
    await eventually(() => page.getByTestId('row-notes:read_note').getAttribute('data-status')).toBe('ready')
    await visit(page, '/tokens')
    await page.getByLabel('Name').first().fill('csp-probe')
    await page.getByRole('button', { name: 'Create token' }).click()
    await eventually(() => page.getByTestId('new-token').count()).toBe(1)
    await visit(page, '/activity')
    await eventually(() => page.getByText('Live: new records appear here as they are recorded.').count()).toBe(1)
    const segment = page.locator('[data-testid=chart-bar] a[data-verdict]').first()
    expect(await segment.evaluate((e) => e.getBoundingClientRect().height)).toBeGreaterThan(3)
    expect(violations).toEqual([])
    await context.close()
  })
})
