import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { serverConnections } from '@/db/schema'
import { addServer } from '@/lib/admin/upstreams'
import { loadState } from '@/lib/state/load'
import { tempDbFile } from '@/tests/helpers/db'
import { freePort, startServer } from '@/tests/helpers/server'
import { agentToken, FIXTURE, stdioFixture, waitFor } from '@/tests/upstream/harness'
import { printTable, summarize, type Row } from './stats'
import { listeningPid } from './calls'

const KEY = 'tg_op_bench_key_0000000000000000'
const ctx = { actor: 'bench' }
const ready = (db: Db, name: string) => db.select().from(serverConnections).where(eq(serverConnections.serverName, name)).get()?.state === 'ready'

/** RSS (MiB) of the toolgate server process (the one listening on `port`), fixtures excluded. */
function serverRssMiB(port: number): number {
  const status = readFileSync(`/proc/${listeningPid(port)}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024
}

export async function benchUpstream(): Promise<void> {
  const rows: Row[] = []

  // 1. boot to all demo upstreams ready (the demo state's two stdio servers), 5 boots
  const boots: number[] = []
  for (let i = 0; i < 5; i++) {
    const file = tempDbFile()
    const db = openDb(file)
    await loadState(db, JSON.parse(readFileSync('lib/state/demo-state.json', 'utf8')), 'bench')
    const t = performance.now()
    const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on' })
    await waitFor('demo upstreams ready', () => ready(db, 'notebook') && ready(db, 'ops'), 60_000)
    boots.push(performance.now() - t)
    await server.stop()
  }
  rows.push(summarize('server boot → all demo upstreams ready (2 stdio servers)', boots))

  // 2. discovery of an upstream with 1,000 tools (10 pages of 100), through the running server
  const file = tempDbFile()
  const db = openDb(file)
  const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on', TOOLGATE_PING_INTERVAL_MS: '3600000' })
  try {
    const discoveries: number[] = []
    for (let i = 0; i < 3; i++) {
      const fx = stdioFixture({ pageSize: 100, tools: Array.from({ length: 1000 }, (_, k) => ({ name: `tool_${k}`, description: `Tool number ${k}.` })) })
      const t = performance.now()
      await addServer(db, { name: `big${i}`, transport: fx.transport, trusted: true }, ctx)
      await waitFor('big ready', () => ready(db, `big${i}`), 60_000)
      discoveries.push(performance.now() - t)
    }
    rows.push(summarize('add → ready for an upstream with 1,000 tools (incl. spawn)', discoveries))

    // 2b. a dead HTTP upstream noticed: killed just after a liveness check passed, until it no longer
    // reads ready (the 1 s HTTP check interval): server/discover at 2026-07-28, ping at 2025-11-25
    const MODERN_FIXTURE = path.resolve('tests/fixtures/modern-upstream.mjs')
    for (const era of ['2026-07-28', '2025-11-25'] as const) {
      const noticed: number[] = []
      for (let i = 0; i < 5; i++) {
        const port = await freePort()
        const fx = stdioFixture({ tools: [{ name: 't' }] })
        const child = spawn(process.execPath, [era === '2026-07-28' ? MODERN_FIXTURE : FIXTURE], { env: { ...process.env, ...fx.httpEnv(port) }, stdio: 'ignore' })
        const url = `http://127.0.0.1:${port}/mcp`
        const checks = era === '2026-07-28' ? async () => Number(await (await fetch(`http://127.0.0.1:${port}/discovers`)).text()) : fx.received
        try {
          await waitFor('the fixture listening', () => fetch(url).then(() => true, () => false))
          const name = `mortal${era.slice(0, 4)}${i}`
          await addServer(db, { name, transport: { url }, trusted: true }, ctx)
          await waitFor(`${name} ready`, () => ready(db, name))
          const before = await checks()
          await waitFor('a liveness check', async () => (await checks()) > before)
          const t = performance.now()
          child.kill('SIGKILL')
          await waitFor(`${name} no longer ready`, () => !ready(db, name))
          noticed.push(performance.now() - t)
        } finally {
          child.kill('SIGKILL')
        }
      }
      rows.push(summarize(`a killed HTTP upstream no longer ready (${era === '2026-07-28' ? '2026-07-28, server/discover' : '2025-11-25, ping'}; 1 s checks)`, noticed))
    }

    // (tools/call direct vs through toolgate vs through a peer proxy: the calls section, bench/calls.ts)
    const via = new Client({ name: 'bench', version: '1' })
    await via.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${await agentToken(db)}` } } }))

    // 3. one real call longer than the 60 s the client SDK would cut it at (issue 10): it must simply finish
    const slow = stdioFixture({ tools: [{ name: 'slow', sleepMs: 65_000 }] })
    await addServer(db, { name: 'slowpoke', transport: slow.transport, trusted: true }, ctx)
    await waitFor('slowpoke ready', () => ready(db, 'slowpoke'))
    const t65 = performance.now()
    const long = await via.callTool({ name: 'slowpoke:slow', arguments: {} }, undefined, { timeout: 120_000 })
    const took = (performance.now() - t65) / 1000
    console.log(`\n## A 65 s call through toolgate\n${long.isError ? `FAILED after ${took.toFixed(1)} s: ${JSON.stringify(long.content)}` : `answered after ${took.toFixed(1)} s (no progress; the default call timeout is 10 min)`}`)
    await via.close()
  } finally {
    await server.stop()
  }
  printTable('Upstream runtime', rows)

  // 4. memory of a fresh server process, before and after 50 connected stdio upstreams
  const memFile = tempDbFile()
  const memDb = openDb(memFile)
  const memServer = await startServer({ TOOLGATE_DB: memFile, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on', TOOLGATE_PING_INTERVAL_MS: '3600000' })
  try {
    await new Promise((r) => setTimeout(r, 1000))
    const before = serverRssMiB(memServer.port)
    for (let i = 0; i < 50; i++) await addServer(memDb, { name: `many${i}`, transport: stdioFixture({ tools: [{ name: 't' }, { name: 'u' }] }).transport, trusted: true }, ctx)
    await waitFor('50 upstreams ready', () => Array.from({ length: 50 }, (_, i) => ready(memDb, `many${i}`)).every(Boolean), 120_000)
    await new Promise((r) => setTimeout(r, 1000))
    console.log(`\n## Memory\nserver process RSS: ${before.toFixed(0)} MiB idle → ${serverRssMiB(memServer.port).toFixed(0)} MiB with 50 connected stdio upstreams (the upstream processes themselves not included)`)
  } finally {
    await memServer.stop()
  }
}
