import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Request as PwRequest } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentTokens } from '@/db/schema'
import { listActivity } from '@/db/queries/activity'
import { SESSION_KEY_HEADER } from '@/lib/dashboard/session-cookie'
import { eventually, signedIn, startDashboard, type Dashboard } from '@/tests/dashboard/harness'

/**
 * Issue 22, High #1, as the attacker did it: cookies ignore ports and SameSite counts every
 * 127.0.0.1 port as the same site, so the signed-in browser hands `toolgate_session` to any
 * other loopback service it visits. Whatever that service replays — a real server action, a
 * page, a route handler — must be refused: the cookie alone is not a session.
 */

let d: Dashboard
let hostile: Server
let hostileUrl: string
const stolen: string[] = []

beforeAll(async () => {
  d = await startDashboard()
  // a hostile service on another loopback port: it keeps the Cookie header of every visit
  hostile = createServer((req, res) => {
    if (req.headers.cookie) stolen.push(req.headers.cookie)
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>harmless</title><p>nothing to see</p>')
  })
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r))
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`
})
afterAll(async () => {
  if (hostile) await new Promise((r) => hostile.close(r))
  await d?.stop()
})

const tokenNames = () => d.db.select().from(agentTokens).all().map((t) => t.name)
// names only the database knows: none may appear in anything the thief receives
const markers = ['probe-token', 'notes-bot', 'demo-agent', 'legacy-ci', 'export_notes', 'get_invoice']

/** A captured browser request replayed from Node, with the cookie we choose and the Origin forged to toolgate's own. */
async function replay(req: PwRequest, cookie: string, opts: { key?: string; body?: string } = {}) {
  const headers: Record<string, string> = { ...req.headers() }
  delete headers['content-length']
  delete headers[SESSION_KEY_HEADER]
  headers.cookie = cookie
  headers.origin = d.server.url
  if (opts.key) headers[SESSION_KEY_HEADER] = opts.key
  const res = await fetch(req.url(), { method: req.method(), headers, body: opts.body ?? req.postData() ?? undefined, redirect: 'manual' })
  return { status: res.status, text: await res.text() }
}

describe('the session cookie stolen by another loopback port', () => {
  it('a hostile server on another port gets the cookie, and can neither act nor read with it; with the session key the same requests work', async () => {
    const { context, page } = await signedIn(d)
    // a real create-token action, captured as the browser sends it
    await page.goto('/tokens')
    const captured = page.waitForRequest((r) => r.method() === 'POST' && r.headers()['next-action'] !== undefined)
    await page.getByLabel('Name').first().fill('probe-token')
    await page.getByRole('button', { name: 'Create token' }).click()
    const action = await captured
    await eventually(() => tokenNames()).toContain('probe-token')
    expect(action.headers()[SESSION_KEY_HEADER], 'the browser sends the session key with its actions').toMatch(/^tg_sk_/)

    // the operator follows a link to another loopback port: the browser sends the cookie along
    await page.evaluate((href) => {
      const a = document.createElement('a')
      a.href = href
      a.textContent = 'a link in a chat'
      document.body.append(a)
    }, hostileUrl)
    await page.getByRole('link', { name: 'a link in a chat' }).click()
    await eventually(() => stolen.length).toBeGreaterThan(0)
    const cookie = stolen[0]
    expect(cookie).toMatch(/toolgate_session=tg_ss_/)
    // the hostile page's own storage holds nothing of toolgate's (localStorage is per port)
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([])
    await page.goBack()
    const key = await page.evaluate(() => Object.values(localStorage).find((v) => v.startsWith('tg_sk_')) ?? '')
    expect(key).toMatch(/^tg_sk_/)

    // (a) the captured action, replayed with the stolen cookie and a forged Origin, for a token of the thief's
    const theirs = (action.postData() ?? '').replace('probe-token', 'stolen-token')
    expect(theirs).toContain('stolen-token')
    const before = listActivity(d.db).length
    const refused = await replay(action, cookie, { body: theirs })
    expect(refused.text).toContain('You are not signed in')
    expect(refused.text).not.toContain('tg_at_')
    expect(tokenNames()).not.toContain('stolen-token')
    expect(listActivity(d.db).length).toBe(before)

    // (b) every dashboard page, as a document and as the router's RSC request: no data at all
    const pages = ['/', '/preflight', '/approvals', '/activity', '/activity/req_anything', '/servers', '/servers/notes', '/tokens', '/tokens/nightly', '/surface', '/settings']
    for (const path of pages) {
      for (const extra of [{}, { rsc: '1' }] as Record<string, string>[]) {
        const res = await fetch(`${d.server.url}${path}`, { headers: { cookie, origin: d.server.url, ...extra }, redirect: 'manual' })
        const text = await res.text()
        for (const m of markers) expect(text.includes(m), `${path} ${JSON.stringify(extra)} shows ${m}`).toBe(false)
      }
    }

    // (c) every route handler: 401
    const routes: [string, RequestInit][] = [
      ['/api/dashboard/calls', {}],
      ['/api/dashboard/search?q=notes', {}],
      ['/api/dashboard/tool-ids?q=notes', {}],
      ['/api/dashboard/session', {}],
      ['/api/dashboard/activity/stream?after=0', {}],
      ['/api/dashboard/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: ['notes:read_note'], token: null, profile: null, policy: {}, era: 'modern', resolve: null }) }],
      ['/activity/export?format=csv', {}],
      ['/activity/export?format=json', {}],
    ]
    const call = async (path: string, init: RequestInit, withKey: boolean) => {
      const ac = new AbortController()
      const res = await fetch(`${d.server.url}${path}`, { ...init, signal: ac.signal, headers: { ...init.headers as Record<string, string>, cookie, origin: d.server.url, ...(withKey ? { [SESSION_KEY_HEADER]: key } : {}) } })
      const status = res.status
      ac.abort()
      return status
    }
    for (const [path, init] of routes) expect(await call(path, init, false), path).toBe(401)
    expect(listActivity(d.db).length).toBe(before)

    // proof the replays are sound: the same requests with the session key go through
    for (const [path, init] of routes) expect(await call(path, init, true), path).toBeLessThan(300)
    for (const [path, marker] of [['/tokens', 'probe-token'], ['/servers', 'legacy-ci']]) {
      const res = await fetch(`${d.server.url}${path}`, { headers: { cookie, origin: d.server.url, rsc: '1', [SESSION_KEY_HEADER]: key } })
      expect(await res.text()).toContain(marker)
    }
    const accepted = await replay(action, cookie, { body: theirs, key })
    expect(accepted.text).toContain('"ok":true')
    expect(tokenNames()).toContain('stolen-token')
    await context.close()
  })
})
