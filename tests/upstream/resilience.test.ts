import { spawn } from 'node:child_process'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { serverConnections } from '@/db/schema'
import { operatorSessionHeaders } from '@/tests/helpers/session'
import { addServer } from '@/lib/admin/upstreams'
import { runCli } from '@/tests/helpers/cli'
import { freshDb } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { AGENT, demoState, startHarness } from '@/tests/mcp/harness'
import { agentToken, connectionState, runtimeEnv, stdioFixture, waitFor } from './harness'

const root = path.resolve(import.meta.dirname, '..', '..')
const KEY = 'tg_op_resilience_test_key_000000'
const ctx = { actor: 'test' }
const running: RunningServer[] = []
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop()
})

/** Another process takes SQLite's write lock and holds it for `ms`; resolves once it holds it. */
async function holdWriteLock(file: string, ms: number): Promise<{ released: Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(path.join(root, 'node_modules', 'better-sqlite3'))})
    const db = new Database(${JSON.stringify(file)})
    db.pragma('busy_timeout = 5000')
    db.exec('BEGIN IMMEDIATE')
    console.log('locked')
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0) }, ${ms})`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => { if (String(d).includes('locked')) resolve() })
    child.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)))
  })
  return { released: new Promise((r) => child.once('exit', () => r())) }
}

const timed = async <T>(fn: () => Promise<T>) => {
  const t = performance.now()
  const value = await fn()
  return { value, ms: performance.now() - t }
}

describe('a write lock held by another process', () => {
  it('for 12 s: whoami, a plain tools/list and a dashboard page keep answering; a check fails closed after a bounded wait', async () => {
    const h = await startHarness(demoState())
    running.push(h.server)
    const session = await operatorSessionHeaders(h.db)
    const lock = await holdWriteLock(h.file, 12_000)
    const started = Date.now()

    const check = timed(() => fetch(`${h.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'tg_op_mcp_test_key_0123456789' },
      body: JSON.stringify({ tools: [{ id: 'notes:read_note' }] }),
    }))
    // while the check waits for the lock, reads are answered at once, over and over
    const reads: number[] = []
    while (Date.now() - started < 9_000) {
      const whoami = await timed(() => fetch(`${h.server.url}/api/v1/whoami`, { headers: { authorization: `Bearer ${AGENT}` } }))
      expect(whoami.value.status).toBe(200)
      const list = await timed(() => fetch(h.mcp, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${AGENT}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }))
      expect(list.value.status).toBe(200)
      const page = await timed(() => fetch(`${h.server.url}/servers`, { headers: session }))
      expect(page.value.status).toBe(200)
      reads.push(whoami.ms, list.ms, page.ms)
    }
    expect(reads.length).toBeGreaterThan(9)
    expect(Math.max(...reads)).toBeLessThan(2_000)

    const refused = await check
    expect(refused.value.status).toBe(503)
    expect((await refused.value.json()).error).toMatch(/activity record not persisted.*stayed locked by another process/)
    expect(refused.ms).toBeGreaterThan(4_000)
    expect(refused.ms).toBeLessThan(8_000)

    await lock.released
    const after = await fetch(`${h.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'tg_op_mcp_test_key_0123456789' },
      body: JSON.stringify({ tools: [{ id: 'notes:read_note' }] }),
    })
    expect(after.status).toBe(200)
  })

  it('during an upstream crash: the runtime keeps supervising, logs the failed write, and recovers once the lock is gone', async () => {
    const { db, file } = freshDb()
    const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, ...runtimeEnv })
    running.push(server)
    const fx = stdioFixture({ tools: [{ name: 't' }] })
    await addServer(db, { name: 'crashy', transport: fx.transport, trusted: true }, ctx)
    await waitFor('crashy ready', () => connectionState(db, 'crashy')?.state === 'ready')

    const lock = await holdWriteLock(file, 8_000)
    fx.set({ mode: 'crash', tools: [{ name: 't' }] })
    await waitFor('a failed state write logged', () => server.log().includes("could not publish crashy's state"), 15_000)
    expect(connectionState(db, 'crashy')?.state).toBe('ready') // the row could not change while locked
    await lock.released
    await waitFor('the crash published', () => connectionState(db, 'crashy')?.state !== 'ready', 10_000)
    fx.set({ mode: 'ok', tools: [{ name: 't' }] })
    await waitFor('crashy ready again', () => connectionState(db, 'crashy')?.state === 'ready', 20_000)
  })
})

describe('a crash of toolgate itself (kill -9)', () => {
  const readyOf = async (db: Db, url: string) => {
    const res = await fetch(`${url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ tools: [{ id: 'kept:t' }] }),
    })
    return (await res.json()).data.tools[0] as { status: string; reason?: string; detail?: string }
  }

  it('leaves no `ready` behind: the CLI reads the runtime as gone, and a restart answers not-ready until it has reconnected', async () => {
    const { db, file } = freshDb()
    const env = { TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, ...runtimeEnv, TOOLGATE_RUNTIME_LEASE_MS: '1500' }
    const first = await startServer(env)
    running.push(first)
    await agentToken(db)
    // a slow start: after the restart, a window in which the upstream is not connected yet
    const fx = stdioFixture({ startDelayMs: 2_000, tools: [{ name: 't' }] })
    await addServer(db, { name: 'kept', transport: fx.transport, trusted: true }, ctx)
    await waitFor('kept ready', () => connectionState(db, 'kept')?.state === 'ready')
    expect((await readyOf(db, first.url)).status).toBe('ready')

    await first.crash()
    expect(connectionState(db, 'kept')?.state).toBe('ready') // the row still says so, but its runtime is gone
    const cli = await runCli(['tools', 'preflight', 'kept:t', '-o', 'json', '--db', file])
    expect(cli.code, cli.stderr).toBe(10)
    expect(JSON.parse(cli.stdout).tools[0]).toMatchObject({ reason: 'server_unhealthy', detail: expect.stringContaining("toolgate's upstream runtime is not running") })

    const second = await startServer(env)
    running.push(second)
    const seen: string[] = []
    for (;;) {
      const t = await readyOf(db, second.url)
      seen.push(t.status === 'ready' ? 'ready' : t.reason!)
      if (t.status === 'ready') break
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(seen[0]).toBe('server_initializing') // reset before the first answer
    expect(seen.slice(0, -1).every((s) => s !== 'ready')).toBe(true)
    const row = db.select().from(serverConnections).where(eq(serverConnections.serverName, 'kept')).get()!
    expect(row.runtimeInstance).toMatch(/^rt_/)
  })

  it('a lease whose holder (a process of this machine) is gone is dead at once, however long it had to run', async () => {
    const { db, file } = freshDb()
    // a lease that would vouch for the killed runtime for ten minutes
    const env = { TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, ...runtimeEnv, TOOLGATE_RUNTIME_LEASE_MS: '600000' }
    const first = await startServer(env)
    running.push(first)
    const fx = stdioFixture({ tools: [{ name: 't' }] })
    await addServer(db, { name: 'kept', transport: fx.transport, trusted: true }, ctx)
    await waitFor('kept ready', () => connectionState(db, 'kept')?.state === 'ready')
    const crashed = connectionState(db, 'kept')!.runtimeInstance

    await first.crash()
    const preflight = await runCli(['tools', 'preflight', 'kept:t', '-o', 'json', '--db', file])
    expect(preflight.code, preflight.stderr).toBe(10)
    expect(JSON.parse(preflight.stdout).tools[0]).toMatchObject({ reason: 'server_unhealthy', detail: expect.stringMatching(/toolgate's upstream runtime is not running \(its process \d+ is gone/) })
    const list = await runCli(['upstream', 'list', '-o', 'json', '--db', file])
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ name: 'kept', connection: 'disconnected' })

    // a new toolgate takes the dead lease over at once and connects
    const second = await startServer(env)
    running.push(second)
    await waitFor('kept ready under the new runtime', () => { const c = connectionState(db, 'kept'); return c?.state === 'ready' && c.runtimeInstance !== crashed })
    expect((await runCli(['upstream', 'list', '-o', 'json', '--db', file])).stdout).toContain('"connection": "ready"')
  })
})
