import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { demoStateFile, freshDb, load } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'

/** Issue 22, the web-facing Low items: each answered with a clear 4xx/503 instead of a 500, a hang or a stack trace. */

const root = path.resolve(import.meta.dirname, '..', '..')
const KEY = 'tg_op_web_hardening_test_key_000'
let server: RunningServer
let db: Db
let file: string

beforeAll(async () => {
  ;({ db, file } = freshDb())
  await load(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')))
  server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY })
})
afterAll(async () => { await server?.stop() })

const own = () => `127.0.0.1:${server.port}`

/** A raw request with exactly these headers; `timeout` ms without an answer is reported as such. */
function raw(pathname: string, opts: { method?: string; headers?: Record<string, string>; body?: string; timeout?: number } = {}): Promise<{ status: number | 'no answer'; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path: pathname, method: opts.method ?? 'GET', headers: { host: own(), ...opts.headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
    })
    req.setTimeout(opts.timeout ?? 30_000, () => {
      req.destroy()
      resolve({ status: 'no answer', headers: {}, text: '' })
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

function actionId(exportedName: string): string {
  const manifest = JSON.parse(readFileSync(path.join(root, process.env.NEXT_DIST_DIR || '.next', 'server', 'server-reference-manifest.json'), 'utf8'))
  const hit = Object.entries(manifest.node as Record<string, { exportedName: string }>).find(([, v]) => v.exportedName === exportedName)
  if (!hit) throw new Error(`no server action ${exportedName} in the build`)
  return hit[0]
}

/** The sign-in action, as the login form posts it. */
const signIn = (key: string, timeout?: number) => raw('/login', {
  method: 'POST', timeout,
  headers: { 'next-action': actionId('signIn'), 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component', origin: `http://${own()}` },
  body: JSON.stringify([{ key, next: '/' }]),
})

/** A request whose client sends half its body and goes away. */
function abandoned(head: string): Promise<void> {
  return new Promise((resolve) => {
    const sock = net.connect(server.port, '127.0.0.1', () => {
      sock.write(`${head}Host: ${own()}\r\nContent-Length: 1000\r\n\r\n[{"`)
      setTimeout(() => sock.destroy(), 200)
    })
    sock.on('error', () => undefined)
    sock.on('close', () => resolve())
  })
}

describe('requests a page cannot take', () => {
  it.each([
    ['/', 'multipart/form-data; boundary=x', '--x--'],
    ['/servers', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="$ACTION_ID_x"\r\n\r\n\r\n--x--'],
    ['/login', 'multipart/form-data; boundary=x', '--x--'],
    ['/no/such/page', 'application/x-www-form-urlencoded', 'a=b'],
    ['/tokens', 'text/plain', 'hello'],
  ])('POST %s (%s, no Next-Action) is a 405 naming what pages take, with or without a cookie', async (pathname, type, body) => {
    for (const cookie of [{}, { cookie: `toolgate_session=tg_ss_${'A'.repeat(32)}` }] as Record<string, string>[]) {
      const r = await raw(pathname, { method: 'POST', headers: { 'content-type': type, ...cookie }, body })
      expect(r.status, `${pathname} ${JSON.stringify(cookie)}`).toBe(405)
      expect(r.headers.allow).toBe('GET, HEAD')
      expect(r.text).toContain('pages take GET')
    }
    expect(server.log()).not.toContain('Invalid Server Actions request')
  })

  it.each([[''], [' '], ['not-an-action'], ['x'.repeat(500)]])('a POST whose Next-Action header is %j is answered 400 at once', async (id) => {
    const r = await raw('/login', { method: 'POST', headers: { 'next-action': id, 'content-type': 'text/plain;charset=UTF-8' }, body: '[]', timeout: 20_000 })
    expect(r.status).toBe(400)
    expect(r.text).toContain('Next-Action header names no server action')
  })
})

describe('a client that goes away mid-request', () => {
  it('is one quiet line in the log, not a crash with a stack trace', async () => {
    const heads = [
      `POST /api/v1/preflight HTTP/1.1\r\nContent-Type: application/json\r\nx-api-key: ${KEY}\r\n`,
      'POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer tg_at_demo_agent_0000000\r\n',
      `POST /login HTTP/1.1\r\nNext-Action: ${actionId('signIn')}\r\nContent-Type: text/plain;charset=UTF-8\r\n`,
    ]
    const before = server.log().length
    for (const head of heads) await abandoned(head)
    const log = () => server.log().slice(before)
    await expect.poll(() => log().split('\n').filter((l) => l.includes('the client went away')).length, { timeout: 20_000 }).toBe(heads.length)
    expect(log()).not.toMatch(/failed unexpectedly|abortIncoming|\bat \S+ \(/)
  })
})

describe('the OAuth redirect base and client metadata document', () => {
  it('ignore X-Forwarded-Proto and X-Forwarded-Host unless TOOLGATE_TRUST_PROXY is set', async () => {
    const doc = async (s: RunningServer, headers: Record<string, string>) => {
      const r = await new Promise<string>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: s.port, path: '/oauth/client-metadata.json', headers: { host: `127.0.0.1:${s.port}`, ...headers } }, (res) => {
          let t = ''
          res.on('data', (c) => (t += c))
          res.on('end', () => resolve(t))
        })
        req.on('error', reject)
        req.end()
      })
      return JSON.parse(r).client_id as string
    }
    const forged = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }
    expect(await doc(server, forged)).toBe(`http://127.0.0.1:${server.port}/oauth/client-metadata.json`)
    const behindProxy = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, TOOLGATE_TRUST_PROXY: '1', TOOLGATE_ALLOWED_HOSTS: 'toolgate.corp.example' })
    try {
      expect(await doc(behindProxy, { 'x-forwarded-proto': 'https' })).toBe(`https://127.0.0.1:${behindProxy.port}/oauth/client-metadata.json`)
      expect(await doc(behindProxy, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'toolgate.corp.example' })).toBe('https://toolgate.corp.example/oauth/client-metadata.json')
      // a forwarded name the boundary does not allow is not believed
      expect(await doc(behindProxy, forged)).toBe(`https://127.0.0.1:${behindProxy.port}/oauth/client-metadata.json`)
    } finally {
      await behindProxy.stop()
    }
  })
})

describe('sign-in when the database cannot be written', () => {
  it('a foreign write lock: a clear answer saying what to do, no 500; once it is released sign-in works', async () => {
    const lock = spawn(process.execPath, ['-e', `
      const db = new (require(${JSON.stringify(path.join(root, 'node_modules', 'better-sqlite3'))}))(${JSON.stringify(file)})
      db.exec('BEGIN IMMEDIATE'); console.log('locked')
      process.stdin.on('data', () => { db.exec('COMMIT'); db.close(); process.exit(0) })`], { stdio: ['pipe', 'pipe', 'inherit'] })
    await new Promise<void>((resolve) => lock.stdout!.on('data', (d) => String(d).includes('locked') && resolve()))
    try {
      const r = await signIn(KEY)
      expect(r.status).toBe(200) // a server action answers with its result
      expect(r.text).toContain('"ok":false')
      expect(r.text).toContain('stayed locked by another process')
      expect(r.text).toMatch(/"fix":"[^"]*(wait|try again)/i)
      expect(r.headers['set-cookie']).toBeUndefined()
    } finally {
      lock.stdin!.write('release\n')
      await new Promise((r) => lock.once('exit', r))
    }
    const ok = await signIn(KEY)
    expect(ok.text).toContain('"ok":true')
    expect(String(ok.headers['set-cookie'])).toContain('toolgate_session=')
  })
})

describe('the operator key from the environment', () => {
  it('TOOLGATE_API_KEY shorter than 24 characters stops the start with an error naming it', async () => {
    const fresh = freshDb()
    await expect(startServer({ TOOLGATE_DB: fresh.file, TOOLGATE_API_KEY: 'short-key' })).rejects.toThrow(/TOOLGATE_API_KEY is 9 characters long: use at least 24/)
  })
})

// last: it throttles this test client's address (127.0.0.1) on this server
describe('failed sign-ins', () => {
  it('are recorded with the socket address (never the key tried) and throttled per address, saying when to retry', async () => {
    const before = listActivity(db, { type: 'operator.sign_in_refused' }).length
    const tried = ['tg_op_guess_number_one_000000', 'tg_op_guess_number_two_000000', 'tg_at_demo_nightly_0000', 'tg_op_guess_number_four_00000', 'tg_op_guess_number_five_00000']
    for (const [i, key] of tried.entries()) {
      const r = await signIn(key)
      expect(r.text).toContain('"ok":false')
      // the last one allowed says so
      expect(r.text.includes('Too many failed sign-ins'), `attempt ${i + 1}`).toBe(i === tried.length - 1)
    }
    const records = listActivity(db, { type: 'operator.sign_in_refused' }).slice(0, tried.length)
    expect(records.length - before).toBe(tried.length)
    for (const r of records) expect(r.data).toMatchObject({ surface: 'dashboard', address: '127.0.0.1' })
    expect(records.map((r) => (r.data as { reason: string }).reason).sort()).toEqual(['agent_token', 'wrong_key', 'wrong_key', 'wrong_key', 'wrong_key'])
    const stored = JSON.stringify(listActivity(db, { limit: 100_000 }))
    for (const key of tried) expect(stored).not.toContain(key)

    // the next attempt, even with the right key, waits: the message says until when
    const throttled = await signIn(KEY)
    expect(throttled.text).toContain('"ok":false')
    expect(throttled.text).toMatch(/Too many failed sign-ins from 127\.0\.0\.1: try again in \d+ (s|min) \(at \d\d:\d\d:\d\d UTC\)/)
    expect(throttled.headers['set-cookie']).toBeUndefined()
    // throttled attempts are not evaluated, and not recorded one by one
    expect(listActivity(db, { type: 'operator.sign_in_refused' }).length - before).toBe(tried.length)
  })
})
