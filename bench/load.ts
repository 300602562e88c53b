// Load: 32 clients checking back to back for ~10 s. Reports checks/s, latency, errors, and
// whether every answered check is on the record (no verdict without its record, under load too).
// The clients use a lean node:http client (./http), so the server, not the generator, is measured.
import { randomBytes } from 'node:crypto'
import { like } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { activity } from '@/db/schema'
import { readyIds } from './state'
import { startFloor } from './floor'
import { fmt, printTable, printTarget, summarize } from './stats'
import { postJson } from './http'

/** `clients` loops calling `call` back to back for `seconds`: how fast each answered, what failed. */
export async function drive(clients: number, seconds: number, call: () => Promise<void>) {
  const latencies: number[] = []
  const errors = new Map<string, number>()
  const deadline = performance.now() + seconds * 1000
  const client = async () => {
    while (performance.now() < deadline) {
      const t = performance.now()
      try {
        await call()
        latencies.push(performance.now() - t)
      } catch (e) {
        const key = e instanceof Error ? e.message : String(e)
        errors.set(key, (errors.get(key) ?? 0) + 1)
      }
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, client))
  const elapsed = (performance.now() - started) / 1000
  return { latencies, errors, elapsed, rate: latencies.length / elapsed }
}

/** Checks of 10 ids posted to `url`, each under its own request id (`run`_n): which were answered. */
async function driveChecks(url: string, headers: Record<string, string>, clients: number, seconds: number, run: string) {
  const answered: string[] = []
  const target = new URL(url)
  let n = 0
  const result = await drive(clients, seconds, async () => {
    const requestId = `${run}_${n++}`
    const res = await postJson(target, JSON.stringify({ tools: readyIds(10, n).map((id) => ({ id })) }), { 'x-request-id': requestId, ...headers })
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`)
    answered.push(requestId)
  })
  return { ...result, answered }
}

export async function benchLoad(db: Db, url: string, apiKey: string, clients = 32, seconds = 10): Promise<void> {
  // the baselines: the same load generator against the bare node:http floor (what this machine's
  // client and loopback allow, with a server that does nothing), and against the durable floor
  // (the same server committing one row per request first, as every answered check must)
  const floors = { plain: await startFloor(), durable: await startFloor({ durable: true }) }
  let base: Awaited<ReturnType<typeof driveChecks>>
  let durable: Awaited<ReturnType<typeof driveChecks>>
  try {
    base = await driveChecks(`${floors.plain.url}/`, {}, clients, 3, 'floor')
    durable = await driveChecks(`${floors.durable.url}/`, {}, clients, 5, 'durable')
  } finally {
    floors.plain.stop()
    floors.durable.stop()
  }
  const run = `load_${randomBytes(4).toString('hex')}`
  const { answered, latencies, errors, elapsed, rate } = await driveChecks(`${url}/api/v1/preflight`, { 'x-api-key': apiKey }, clients, seconds, run)
  const recorded = new Set(db.select({ id: activity.requestId }).from(activity).where(like(activity.requestId, `${run}_%`)).all().map((r) => r.id))
  const missing = answered.filter((id) => !recorded.has(id)).length
  const baseRow = summarize(`floor: bare node:http, same ${clients} clients`, base.latencies, `${base.rate.toFixed(0)} requests/s`)
  const durableRow = summarize(`durable floor: the same, one durable commit per request, ${clients} clients`, durable.latencies, `${durable.rate.toFixed(0)} requests/s`)
  const row = summarize(`REST preflight, 10 ids, ${clients} concurrent clients`, latencies, `${rate.toFixed(0)} checks/s, ${(rate / base.rate).toFixed(2)}× the floor's rate, ${(rate / durable.rate).toFixed(2)}× the durable floor's`)
  printTable(`Load: ${clients} clients for ${elapsed.toFixed(1)} s`, [baseRow, durableRow, row], baseRow)
  console.log(`  answered ${answered.length}, recorded ${recorded.size}, answered but not recorded ${missing}, errors ${[...errors].map(([k, v]) => `${k} ×${v}`).join(', ') || 'none'}`)
  printTarget(`checks/s at ${clients} clients ≥ 0.9× the durable floor's requests/s, every answered check recorded`,
    `${rate.toFixed(0)} vs ${durable.rate.toFixed(0)} (${(rate / durable.rate).toFixed(2)}×), ${missing} unrecorded (p99 ${fmt(row.p99)})`,
    rate >= 0.9 * durable.rate && missing === 0)
}
