// tools/call side by side in one run: the same stdio fixture called directly, through toolgate
// (gate, record, forward) and through a peer proxy that only forwards (supergateway --stateful,
// a devDependency used by this bench alone). First one caller at a time, the three interleaved;
// then 32 callers on each proxy in turn (ABBA rounds), with each proxy's CPU per call (its own process's CPU time over
// the calls it answered, from /proc/<pid>/stat; the fixture's processes are not counted) and
// every toolgate call checked against the activity log.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { serverConnections } from '@/db/schema'
import { addServer } from '@/lib/admin/upstreams'
import { tempDbFile } from '@/tests/helpers/db'
import { freePort, startServer } from '@/tests/helpers/server'
import { agentToken, stdioFixture, waitFor } from '@/tests/upstream/harness'
import { jsonRpcAnswer, post } from './http'
import { drive } from './load'
import { fmt, printTable, printTarget, summarize, timeAsync, type Row } from './stats'

const KEY = 'tg_op_bench_key_0000000000000000'
const PEER = path.resolve('node_modules', 'supergateway', 'dist', 'index.js')
const LOOPBACK_ONLY = path.resolve('tests', 'fixtures', 'loopback-only.cjs')
const LEGACY = '2025-11-25'
const CALLERS = 32
/** per proxy, in two rounds */
const LOAD_SECONDS = 8

/** The pid listening on `port` (the toolgate server, not the process that launched it). */
export function listeningPid(port: number): number {
  return Number(execFileSync('sh', ['-c', `ss -ltnp 'sport = :${port}' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2`]).toString().trim())
}

const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim())
/** CPU time (user + system, ms) a process has used so far: /proc/<pid>/stat fields 14 and 15. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1000
}

/** The echo fixture, as a stdio command; it keeps no count or call log (a file write per message). */
export function echoFixture() {
  const { transport } = stdioFixture({ tools: [{ name: 'echo' }] })
  return { command: transport.command, args: transport.args, env: { FIXTURE_CONTROL: transport.env.FIXTURE_CONTROL } }
}

/** supergateway --stateful in front of the fixture, on a loopback port; stops with its fixture. */
async function startPeer(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const fx = echoFixture()
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [
    '--require', LOOPBACK_ONLY, PEER, '--stdio', [fx.command, ...fx.args].join(' '),
    '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none',
  ], { env: { ...process.env, ...fx.env }, stdio: ['pipe', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${port}/mcp`
  await waitFor('the peer listening', async () => {
    if (child.exitCode !== null) throw new Error(`supergateway exited (${child.exitCode})`)
    return fetch(url, { method: 'GET' }).then(() => true, () => false)
  }, 30_000)
  const stop = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
    if (child.exitCode === null) child.kill('SIGKILL')
  }
  return { url, pid: child.pid!, stop }
}

const sdkClient = async (url: string, headers: Record<string, string> = {}) => {
  const c = new Client({ name: 'bench', version: '1' })
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  return c
}

/** A lean Streamable HTTP caller (node:http, no SDK) for the load: one tools/call per POST. */
function leanCaller(url: string, headers: Record<string, string>, tool: string) {
  const target = new URL(url)
  const base = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY, ...headers }
  let id = 0
  return async () => {
    const n = ++id
    const res = await post(target, JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: tool, arguments: { text: String(n) } } }), base)
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`)
    const answer = jsonRpcAnswer(res) as { result?: { isError?: boolean; content?: { text?: string }[] }; error?: { message: string } }
    if (answer.error || answer.result?.isError) throw new Error(answer.error?.message ?? answer.result?.content?.[0]?.text ?? 'tool error')
  }
}

/** A stateful session on the peer (initialize, then initialized): its id, for the lean caller. */
async function peerSession(url: string): Promise<string> {
  const target = new URL(url)
  const headers = { accept: 'application/json, text/event-stream' }
  const init = await post(target, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }), headers)
  const session = String(init.headers['mcp-session-id'] ?? '')
  if (init.status !== 200 || !session) throw new Error(`the peer's initialize answered ${init.status}: ${init.text.slice(0, 200)}`)
  await post(target, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': LEGACY })
  return session
}

const count = (db: Db, type: string) => (db.$client.prepare('select count(*) as n from activity where type = ?').get(type) as { n: number }).n

interface Proxy { name: string; pid: number; call: () => Promise<void> }

/**
 * 32 callers on each proxy in turn, ABBA (a, b, b, a: LOAD_SECONDS in all per proxy), so the
 * machine's drift falls on both alike; per proxy its calls/s, latency, and its process's CPU over
 * the calls it answered.
 */
async function underLoad(a: Proxy, b: Proxy) {
  const runs = new Map<Proxy, { latencies: number[]; errors: Map<string, number>; elapsed: number; cpu: number }>()
  for (const p of [a, b, b, a]) {
    const before = cpuMs(p.pid)
    const run = await drive(CALLERS, LOAD_SECONDS / 2, p.call)
    const total = runs.get(p) ?? { latencies: [] as number[], errors: new Map<string, number>(), elapsed: 0, cpu: 0 }
    total.latencies.push(...run.latencies)
    for (const [k, v] of run.errors) total.errors.set(k, (total.errors.get(k) ?? 0) + v)
    total.elapsed += run.elapsed
    total.cpu += cpuMs(p.pid) - before
    runs.set(p, total)
  }
  return [a, b].map((p) => {
    const { latencies, errors, elapsed, cpu } = runs.get(p)!
    const rate = latencies.length / elapsed
    const cpuPerCall = cpu / latencies.length
    return { latencies, errors, rate, cpuPerCall, row: summarize(p.name, latencies, `${rate.toFixed(0)} calls/s, ${cpuPerCall.toFixed(2)} ms CPU per call`) }
  })
}

const errorsOf = (e: Map<string, number>) => [...e].map(([k, v]) => `${k} ×${v}`).join(', ') || 'none'

export async function benchCalls(): Promise<Row[]> {
  console.log(`\n(load average at start: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`)
  const file = tempDbFile()
  const db = openDb(file)
  // BENCH_CPU_PROF=<dir>: the toolgate server writes a V8 CPU profile of its calls under load there
  const profDir = process.env.BENCH_CPU_PROF && path.resolve(process.env.BENCH_CPU_PROF)
  const prof: Record<string, string> = profDir ? { NODE_OPTIONS: `--require ${path.resolve('bench', 'cpu-profile.cjs')}`, BENCH_CPU_PROF: profDir } : {}
  const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on', TOOLGATE_PING_INTERVAL_MS: '3600000', ...prof })
  const peer = await startPeer()
  const clients: Client[] = []
  try {
    await addServer(db, { name: 'callee', transport: echoFixture(), trusted: true }, { actor: 'bench' })
    await waitFor('callee ready', () => db.select().from(serverConnections).where(eq(serverConnections.serverName, 'callee')).get()?.state === 'ready')
    const token = await agentToken(db)
    const mcp = `${server.url}/mcp`
    const fx = echoFixture()
    const direct = new Client({ name: 'bench', version: '1' })
    await direct.connect(new StdioClientTransport({ ...fx, env: { ...process.env, ...fx.env } as Record<string, string> }))
    const via = await sdkClient(mcp, { authorization: `Bearer ${token}` })
    const viaPeer = await sdkClient(peer.url)
    clients.push(direct, via, viaPeer)

    // 1. one caller at a time, the three interleaved so the machine's noise falls on each alike
    const samples = { direct: [] as number[], toolgate: [] as number[], peer: [] as number[] }
    const timed = async (into: number[], c: Client, name: string, i: number) => {
      const t = performance.now()
      const r = await c.callTool({ name, arguments: { text: String(i) } })
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`)
      if (i >= 50) into.push(performance.now() - t)
    }
    for (let i = 0; i < 650; i++) {
      await timed(samples.direct, direct, 'echo', i)
      // each proxy goes first every other time: the one after the other is not favoured
      const proxies = [() => timed(samples.toolgate, via, 'callee:echo', i), () => timed(samples.peer, viaPeer, 'echo', i)]
      for (const p of i % 2 ? proxies.reverse() : proxies) await p()
    }
    const directRow = summarize('baseline: tools/call on the fixture directly (stdio)', samples.direct)
    const viaRow = summarize('tools/call through toolgate /mcp (gate → stdio → record)', samples.toolgate)
    const peerRow = summarize('tools/call through supergateway --stateful (forwards only)', samples.peer)
    const whoami = await timeAsync('GET /api/v1/whoami on toolgate (the HTTP hop alone)', 500, async () => {
      await (await fetch(`${server.url}/api/v1/whoami`, { headers: { 'x-api-key': KEY } })).json()
    })
    const adds = (r: Row) => `+${fmt(r.p50 - directRow.p50)} p50 / +${fmt(r.p95 - directRow.p95)} p95 over the direct call`
    viaRow.note = adds(viaRow)
    peerRow.note = adds(peerRow)
    printTable('tools/call: one caller, direct vs through toolgate vs through a peer proxy (SDK clients)', [directRow, whoami, viaRow, peerRow], directRow)
    printTarget('through toolgate adds ≤ what the peer adds, p50', `+${fmt(viaRow.p50 - directRow.p50)} vs +${fmt(peerRow.p50 - directRow.p50)}`, viaRow.p50 <= peerRow.p50)
    printTarget('through toolgate adds ≤ what the peer adds, p95', `+${fmt(viaRow.p95 - directRow.p95)} vs +${fmt(peerRow.p95 - directRow.p95)}`, viaRow.p95 <= peerRow.p95)

    // 2. 32 callers, the proxies in ABBA rounds: calls/s and each proxy's CPU per call
    await waitFor('the one-caller outcomes recorded', () => count(db, 'tool.call') === count(db, 'tool.call_outcome'), 30_000)
    const sent = { calls: count(db, 'tool.call'), outcomes: count(db, 'tool.call_outcome') }
    let n = 0
    const directRun = await drive(CALLERS, 3, async () => {
      const r = await direct.callTool({ name: 'echo', arguments: { text: String(++n) } })
      if (r.isError) throw new Error('tool error')
    })
    const directLoad = summarize(`baseline: the fixture directly, ${CALLERS} concurrent calls (stdio)`, directRun.latencies, `${directRun.rate.toFixed(0)} calls/s`)
    const pid = listeningPid(server.port)
    if (profDir) process.kill(pid, 'SIGUSR2')
    const [gated, forwarded] = await underLoad(
      { name: `through toolgate, ${CALLERS} callers`, pid, call: leanCaller(mcp, { authorization: `Bearer ${token}` }, 'callee:echo') },
      { name: `through supergateway --stateful, ${CALLERS} callers`, pid: peer.pid, call: leanCaller(peer.url, { 'mcp-session-id': await peerSession(peer.url) }, 'echo') },
    )
    if (profDir) {
      process.kill(pid, 'SIGUSR2')
      const written = path.join(profDir, `toolgate-${pid}.cpuprofile`)
      await waitFor('the CPU profile written', () => existsSync(written))
      console.log(`  CPU profile of toolgate during its rounds (the peer's rounds between are idle in it): ${written}`)
    }
    // every call made is on the record: its intent before its answer, its outcome soon after
    const made = gated.latencies.length + [...gated.errors.values()].reduce((a, b) => a + b, 0)
    const recorded = await waitFor('every outcome recorded', () => {
      const r = { calls: count(db, 'tool.call') - sent.calls, outcomes: count(db, 'tool.call_outcome') - sent.outcomes }
      return r.outcomes >= made ? r : undefined
    }, 30_000).catch(() => ({ calls: count(db, 'tool.call') - sent.calls, outcomes: count(db, 'tool.call_outcome') - sent.outcomes }))
    printTable(`tools/call: ${CALLERS} callers, ${LOAD_SECONDS} s on each proxy in ABBA rounds (lean node:http client)`, [directLoad, gated.row, forwarded.row], directLoad)
    console.log(`  toolgate: ${made} calls made, ${gated.latencies.length} answered, ${recorded.calls} call records, ${recorded.outcomes} outcome records; errors ${errorsOf(gated.errors)}`)
    console.log(`  peer: ${forwarded.latencies.length} answered; errors ${errorsOf(forwarded.errors)}`)
    printTarget('≤ 1.0 ms server CPU per gated, recorded call', `${gated.cpuPerCall.toFixed(2)} ms (the peer: ${forwarded.cpuPerCall.toFixed(2)} ms)`, gated.cpuPerCall <= 1)
    printTarget(`≥ 1,500 calls/s at ${CALLERS} callers or the peer's rate, 100% recorded`,
      `${gated.rate.toFixed(0)} vs the peer's ${forwarded.rate.toFixed(0)} calls/s; ${recorded.calls}/${made} recorded`,
      (gated.rate >= 1500 || gated.rate >= forwarded.rate) && recorded.calls === made && recorded.outcomes === made)
    console.log(`(load average at end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`)
    return [directRow, viaRow, peerRow, directLoad, gated.row, forwarded.row]
  } finally {
    for (const c of clients) await c.close().catch(() => undefined)
    await peer.stop()
    await server.stop()
    db.$client.close()
  }
}
