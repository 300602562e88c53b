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

/** `clients` loops posting back to back to `url` for `seconds`; what each answered, how fast. */
async function drive(url: string, headers: Record<string, string>, clients: number, seconds: number, run: string) {
  const answered: string[] = []
  const latencies: number[] = []
  const errors = new Map<string, number>()
  let n = 0
  const deadline = performance.now() + seconds * 1000
  const target = new URL(url)
  const client = async () => {
    while (performance.now() < deadline) {
      const requestId = `${run}_${n++}`
      const t = performance.now()
      try {
        const res = await postJson(target, JSON.stringify({ tools: readyIds(10, n).map((id) => ({ id })) }), { 'x-request-id': requestId, ...headers })
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`)
        latencies.push(performance.now() - t)
        answered.push(requestId)
      } catch (e) {
        const key = e instanceof Error ? e.message : String(e)
        errors.set(key, (errors.get(key) ?? 0) + 1)
      }
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, client))
  const elapsed = (performance.now() - started) / 1000
  return { answered, latencies, errors, elapsed, rate: answered.length / elapsed }
}

export async function benchLoad(db: Db, url: string, apiKey: string, clients = 32, seconds = 10): Promise<void> {
  // the baseline: the same load generator against the bare node:http floor (what this machine's
  // client and loopback allow, with a server that does nothing)
  const floor = await startFloor()
  let base: Awaited<ReturnType<typeof drive>>
  try {
    base = await drive(`${floor.url}/`, {}, clients, 3, 'floor')
  } finally {
    floor.stop()
  }
  const run = `load_${randomBytes(4).toString('hex')}`
  const { answered, latencies, errors, elapsed, rate } = await drive(`${url}/api/v1/preflight`, { 'x-api-key': apiKey }, clients, seconds, run)
  const recorded = new Set(db.select({ id: activity.requestId }).from(activity).where(like(activity.requestId, `${run}_%`)).all().map((r) => r.id))
  const missing = answered.filter((id) => !recorded.has(id)).length
  const baseRow = summarize(`floor: bare node:http, same ${clients} clients`, base.latencies, `${base.rate.toFixed(0)} requests/s`)
  const row = summarize(`REST preflight, 10 ids, ${clients} concurrent clients`, latencies, `${rate.toFixed(0)} checks/s, ${(rate / base.rate).toFixed(2)}× the floor's rate`)
  printTable(`Load: ${clients} clients for ${elapsed.toFixed(1)} s`, [baseRow, row], baseRow)
  console.log(`  answered ${answered.length}, recorded ${recorded.size}, answered but not recorded ${missing}, errors ${[...errors].map(([k, v]) => `${k} ×${v}`).join(', ') || 'none'}`)
  printTarget(`≥ 2,000 durable checks/s at ${clients} clients, every answered check recorded`, `${rate.toFixed(0)} checks/s, ${missing} unrecorded (p99 ${fmt(row.p99)})`, rate >= 2000 && missing === 0)
}
