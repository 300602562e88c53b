import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { activity } from '@/db/schema'
import { answerHealth, type Phase } from '@/lib/server/health'
import { freshDb } from '@/tests/helpers/db'
import { rpcBody } from '@/tests/helpers/rpc'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { startGateway } from '@/tests/helpers/gateway'
import { stdioFixture, waitFor } from '@/tests/upstream/harness'

const KEY = 'tg_op_health_test_key_0123456789abcdef'
const servers: RunningServer[] = []
afterAll(async () => {
  for (const s of servers) await s.stop()
})

const get = async (url: string, method = 'GET') => {
  const res = await fetch(url, { method })
  return { status: res.status, body: method === 'HEAD' ? null : await res.json() }
}

describe('/healthz and /readyz', () => {
  it('alive and ready while serving, without credentials; GET and HEAD only', async () => {
    const { file } = freshDb()
    const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY })
    servers.push(server)
    expect(await get(`${server.url}/healthz`)).toEqual({ status: 200, body: { status: 'alive', phase: 'serving' } })
    expect(await get(`${server.url}/readyz?probe=lb`)).toEqual({ status: 200, body: { status: 'ready', phase: 'serving' } })
    expect((await get(`${server.url}/readyz`, 'HEAD')).status).toBe(200)
    expect(await get(`${server.url}/readyz`, 'POST')).toEqual({ status: 405, body: { error: 'use GET for /readyz' } })
  })

  it('not ready on a database a newer toolgate migrated, and ready again once it is this build\'s', async () => {
    const { db, file } = freshDb()
    const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY })
    servers.push(server)
    db.$client.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run('from-the-future', 9_999_999_999_999)
    const r = await get(`${server.url}/readyz`)
    expect(r.status).toBe(503)
    expect(r.body).toEqual({ status: 'not_ready', phase: 'serving', problems: [expect.stringMatching(/^the database's schema is unknown \(9999999999999\), this toolgate's is \d{4}_\w+: a newer toolgate migrated it$/)] })
    expect((await get(`${server.url}/healthz`)).status).toBe(200) // alive all the same
    db.$client.prepare('delete from __drizzle_migrations where hash = ?').run('from-the-future')
    expect((await get(`${server.url}/readyz`)).status).toBe(200)
  })

  it('says starting and draining as such (the phases a running server passes through)', async () => {
    const { db } = freshDb()
    let phase: Phase = 'starting'
    const probe = http.createServer((req, res) => answerHealth(req, res, req.url!, phase, () => db))
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
    try {
      expect(await get(`${url}/readyz`)).toEqual({ status: 503, body: { status: 'not_ready', phase: 'starting', problems: ['starting: connection states are being reset before anything is answered'] } })
      expect(await get(`${url}/healthz`)).toEqual({ status: 200, body: { status: 'alive', phase: 'starting' } })
      phase = 'draining'
      expect(await get(`${url}/readyz`)).toEqual({ status: 503, body: { status: 'not_ready', phase: 'draining', problems: ['draining: toolgate is stopping; in-flight requests are finishing'] } })
    } finally {
      probe.close()
    }
  })
})

describe('stopping', () => {
  it('a call in flight when toolgate is told to stop gets its result: the upstream stays until in-flight requests finish', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-drain-'))
    const released = path.join(dir, 'go')
    const fx = stdioFixture({ tools: [{ name: 'slow', releaseFile: released }] })
    const g = await startGateway(KEY, { upstreams: { up: fx.transport } })
    servers.push(g.server)
    const answer = fetch(`${g.server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${g.agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'up:slow', arguments: {} } }),
    })
    // the call is on the record (its first part) and waiting on the upstream
    await waitFor('the call in flight', () => g.db.select().from(activity).where(eq(activity.type, 'tool.call')).get())
    // SIGTERM to toolgate alone, as a service manager sends it (the test's stop signals the whole group, upstreams too)
    process.kill(g.server.pid, 'SIGTERM')
    // toolgate has begun stopping (it takes no new connections) while the call still runs
    await waitFor('no new connections', () => fetch(`${g.server.url}/healthz`).then(() => false, () => true))
    writeFileSync(released, '')
    const res = await answer
    const body = await rpcBody<{ result?: { isError?: boolean; content: { type: string; text: string }[] }; error?: unknown }>(res)
    expect(body.error).toBeUndefined()
    expect(body.result?.isError, JSON.stringify(body)).toBeFalsy()
    expect(body.result?.content[0]).toMatchObject({ type: 'text' })
    await waitFor('toolgate stopped', () => { try { process.kill(g.server.pid, 0); return false } catch { return true } })
  }, 90_000)
})
