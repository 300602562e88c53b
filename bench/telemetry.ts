import { existsSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { serverConnections } from '@/db/schema'
import { addServer } from '@/lib/admin/upstreams'
import { tempDbFile } from '@/tests/helpers/db'
import { startOtlpReceiver } from '@/tests/helpers/otlp-receiver'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { agentToken, waitFor } from '@/tests/upstream/harness'
import { echoFixture } from './calls'
import { mcpClientOp } from '@/lib/telemetry/mcp-client'
import { currentMcpOp } from '@/lib/telemetry/context'
import { mcpServerOp } from '@/lib/telemetry/mcp-server'
import { commitClock, noteActivityCommit, noteCallGate, noteCheck } from '@/lib/telemetry/notes'
import { fmt, printTable, printTarget, timeInterleavedAsync } from './stats'

const KEY = 'tg_op_bench_key_0000000000000000'
const ready = (db: Db, name: string) => db.select().from(serverConnections).where(eq(serverConnections.serverName, name)).get()?.state === 'ready'
const load = () => loadavg().map((l) => l.toFixed(2)).join(', ')
/** CPU time (ms) a process has used so far: user + system, from /proc (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/**
 * What the hooks one tools/call runs cost while telemetry is off, in this process: the server
 * op, the gate's note, the upstream op, the two outcome hooks, a group commit's note.
 */
function offPathNs(): number {
  const req = { headers: {}, socket: {} } as never
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a:b' } }
  const session = { requestId: 'req_x', caller: { name: 'token:x', tier: 'agent' }, profile: undefined }
  const upstream = { peer: () => { throw new Error('asked for its peer while telemetry is off') } }
  const params = { _meta: {} }
  const result = { isError: false }
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      mcpServerOp(req, body, session)?.end(200)
      noteCheck('mcp-call', 'ready', [], 'req_x')
      noteCallGate('req_x', undefined, undefined)
      mcpClientOp(upstream, 'tools/call', 'b', params)?.end(undefined)
      currentMcpOp()?.result(result)
      currentMcpOp()?.failed(0, '')
      noteActivityCommit(1, commitClock())
    }
  }
  run(100_000)
  const n = 2_000_000
  const t = performance.now()
  run(n)
  return ((performance.now() - t) * 1e6) / n
}

/**
 * The SDK client gives every request its transport's one signal, and undici keeps a listener on
 * it per request: thousands of calls pile thousands on it (MaxListenersExceededWarning), each
 * added slower than the last, in this process. The bench cancels no call: its POSTs go without.
 */
const unsignalledPosts: typeof fetch = (input, init) => fetch(input, init?.method === 'POST' ? { ...init, signal: undefined } : init)

interface Mode { name: string; env: Record<string, string> }

/** A toolgate in `mode` with one stdio upstream, and an agent connected to it. */
async function start(mode: Mode, prof: Record<string, string>): Promise<{ server: RunningServer; agent: Client }> {
  const file = tempDbFile()
  const db = openDb(file)
  const token = await agentToken(db)
  const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on', TOOLGATE_PING_INTERVAL_MS: '3600000', ...mode.env, ...prof })
  await addServer(db, { name: 'callee', transport: echoFixture(), trusted: true }, { actor: 'bench' })
  await waitFor('callee ready', () => ready(db, 'callee'), 60_000)
  const agent = new Client({ name: 'bench', version: '1' })
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: unsignalledPosts }))
  return { server, agent }
}

const callOnce = (agent: Client, i: number) => agent.callTool({ name: 'callee:echo', arguments: { text: String(i) } })

/** Calls a second with `concurrency` calls kept in flight for `ms`. */
async function throughput(agent: Client, concurrency: number, ms: number): Promise<number> {
  const until = performance.now() + ms
  let done = 0
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    while (performance.now() < until) {
      await callOnce(agent, w)
      done++
    }
  }))
  return done / (ms / 1000)
}

/**
 * tools/call through toolgate with telemetry off, with traces on (always_on sampler, exported
 * over OTLP/HTTP to a receiver in this process), and with metrics only (Prometheus /metrics).
 * The three servers run side by side and are called interleaved, so machine noise falls alike.
 * BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile of its throughput rounds there.
 */
export async function benchTelemetry(): Promise<void> {
  const profDir = process.env.BENCH_CPU_PROF && path.resolve(process.env.BENCH_CPU_PROF)
  const prof: Record<string, string> = profDir ? { NODE_OPTIONS: `--require ${path.resolve('bench', 'cpu-profile.cjs')}`, BENCH_CPU_PROF: profDir } : {}
  const receiver = await startOtlpReceiver()
  const modes: Mode[] = [
    { name: 'telemetry off', env: {} },
    { name: 'traces on (always_on, OTLP http/json to a local receiver)', env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on', OTEL_METRICS_EXPORTER: 'none' } },
    { name: 'metrics only (OTEL_METRICS_EXPORTER=prometheus)', env: { OTEL_METRICS_EXPORTER: 'prometheus' } },
  ]
  const running: { server: RunningServer; agent: Client }[] = []
  try {
    for (const m of modes) running.push(await start(m, prof))
    const hooks = offPathNs()
    console.log(`\nload average before: ${load()}`)
    // what each server burns idle (heartbeats, upkeep), taken off what it burns while called
    const idle0 = running.map((r) => cpuMs(r.server.pid))
    const idleStart = performance.now()
    await new Promise((r) => setTimeout(r, 5_000))
    const idlePerMs = running.map((r, k) => (cpuMs(r.server.pid) - idle0[k]) / (performance.now() - idleStart))
    const N = 1500
    const cpu0 = running.map((r) => cpuMs(r.server.pid))
    const t0 = performance.now()
    const rows = await timeInterleavedAsync(N, Object.fromEntries(modes.map((m, k) => [`tools/call p50, ${m.name}`, (i: number) => callOnce(running[k].agent, i)])), 100)
    const elapsed = performance.now() - t0
    const cpuPerCall = running.map((r, k) => ((cpuMs(r.server.pid) - cpu0[k] - idlePerMs[k] * elapsed) * 1000) / (N + 100))
    // throughput: rounds alternate between the modes, 2 s each, 8 calls in flight
    const rates = modes.map(() => [] as number[])
    if (profDir) for (const r of running) process.kill(r.server.pid, 'SIGUSR2')
    for (let round = 0; round < 5; round++) for (const [k, r] of running.entries()) rates[k].push(await throughput(r.agent, 8, 2_000))
    if (profDir) {
      for (const [k, r] of running.entries()) {
        process.kill(r.server.pid, 'SIGUSR2')
        const written = path.join(profDir, `toolgate-${r.server.pid}.cpuprofile`)
        await waitFor('the CPU profile written', () => existsSync(written))
        console.log(`  CPU profile of its throughput rounds, ${modes[k].name}: ${written}`)
      }
    }
    console.log(`load average after: ${load()}; spans received: ${receiver.spans().length}`)
    printTable('telemetry: tools/call through toolgate (stdio upstream)', rows, rows[0])
    const best = rates.map((r) => Math.max(...r))
    console.log(modes.map((m, k) => `  calls/s (8 in flight, best of 5 × 2 s): ${best[k].toFixed(0).padStart(6)}   toolgate CPU per call: ${cpuPerCall[k].toFixed(0).padStart(5)} µs   ${m.name}`).join('\n'))
    console.log(`  telemetry off: the hooks of one call cost ${hooks.toFixed(0)} ns in-process (${((hooks / 1e6 / rows[0].p50) * 100).toFixed(3)}% of its p50)`)
    for (const k of [1, 2]) {
      const added = rows[k].p50 - rows[0].p50
      printTarget(`${modes[k].name} adds ≤ 0.1 ms p50`, `${added >= 0 ? '+' : ''}${fmt(added)}`, added <= 0.1)
      const lost = 1 - best[k] / best[0]
      printTarget(`${modes[k].name} costs ≤ 5% throughput`, `${(lost * 100).toFixed(1)}%`, lost <= 0.05)
    }
  } finally {
    for (const r of running) {
      await r.agent.close().catch(() => undefined)
      await r.server.stop()
    }
    await receiver.close()
  }
}
