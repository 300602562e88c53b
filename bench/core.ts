import type Database from 'better-sqlite3'
import { transactionOn, type Db } from '@/db/client'
import { evaluateNow } from '@/lib/gate/check'
import type { Caller } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'
import { fmt, printTable, printTarget, summarize, timeInterleaved, timeInterleavedAsync, timeSync, type Row } from './stats'
import { startFloor } from './floor'
import { insertActivity } from '@/lib/activity/record'
import { readyIds } from './state'

const operator: Caller = { tier: 'operator', name: 'bench' }

/**
 * The baseline: the bare SQLite reads one evaluation needs (settings, each distinct server and
 * its connection, each tool with its approval), with raw prepared statements in one transaction.
 */
function bareReads(sqlite: Database.Database) {
  const settings = sqlite.prepare('select quarantine_enabled from settings where id = 1')
  const server = sqlite.prepare('select name, enabled, quarantined, trust, disabled_tools, enabled_tools from servers where name = ?')
  const conn = sqlite.prepare('select state, detail, action from server_connections where server_name = ?')
  const tool = sqlite.prepare(`select t.name, t.annotations, t.hash, a.status, a.disabled from tools t
    left join tool_approvals a on a.server_name = t.server_name and a.tool_name = t.name where t.server_name = ? and t.name = ?`)
  return sqlite.transaction((ids: string[]) => {
    settings.get()
    const seen = new Set<string>()
    for (const raw of ids) {
      const p = parseToolId(raw)
      if ('malformed' in p) continue
      if (!seen.has(p.server)) {
        seen.add(p.server)
        server.get(p.server)
        conn.get(p.server)
      }
      tool.get(p.server, p.tool)
    }
  })
}

export async function benchCore(db: Db, restUrl: string, apiKey: string): Promise<Row[]> {
  const ten = (i: number) => readyIds(10, i)
  const fifty = (i: number) => readyIds(50, i)
  const reads = bareReads(db.$client)
  const [baseline10, eval10] = timeInterleaved(5000, {
    'baseline: bare SQLite reads, 10 ids': (i) => reads(ten(i)),
    'evaluator (one read tx + evaluate), 10 ids': (i) => evaluateNow(db, operator, { ids: ten(i) }),
  })
  const [baseline50, eval50] = timeInterleaved(2000, {
    'baseline: bare SQLite reads, 50 ids': (i) => reads(fifty(i)),
    'evaluator (one read tx + evaluate), 50 ids': (i) => evaluateNow(db, operator, { ids: fifty(i) }),
  })
  // the floor under every answered check: one durable (fsync'd) activity insert, back to back
  // (the disk's best case) and one at a time with a pause between (what a lone client's check pays)
  const insert = () => transactionOn(db, (tx) => insertActivity(tx, { requestId: 'bench', type: 'preflight', actor: 'bench', data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } }), 'immediate')
  const durable = timeSync('baseline: one durable activity insert, back to back (synchronous=FULL)', 500, insert, 20)
  const isolated: number[] = []
  for (let i = 0; i < 300; i++) {
    await new Promise((r) => setTimeout(r, 2))
    const t = performance.now()
    insert()
    isolated.push(performance.now() - t)
  }
  const durableIsolated = summarize('baseline: one durable activity insert, alone (2 ms apart)', isolated)
  const floor = await startFloor()
  const durableFloor = await startFloor({ durable: true })
  let rows: Row[]
  try {
    const post = (url: string, body: string, headers: Record<string, string>) => async () => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}`)
      await res.json()
    }
    rows = await timeInterleavedAsync(2000, {
      'floor: bare node:http, POST → small JSON (own process)': (i) => post(`${floor.url}/`, JSON.stringify({ tools: ten(i).map((id) => ({ id })) }), {})(),
      'durable floor: the same, committing one row per request first': (i) => post(`${durableFloor.url}/`, JSON.stringify({ tools: ten(i).map((id) => ({ id })) }), {})(),
      'GET /api/v1/whoami (authenticated, no evaluation)': async () => {
        const res = await fetch(`${restUrl}/api/v1/whoami`, { headers: { 'x-api-key': apiKey } })
        if (res.status !== 200) throw new Error(`whoami answered ${res.status}`)
        await res.json()
      },
      'REST POST /api/v1/preflight, 10 ids (incl. durable record)': (i) => post(`${restUrl}/api/v1/preflight`, JSON.stringify({ tools: ten(i).map((id) => ({ id })) }), { 'x-api-key': apiKey })(),
    })
  } finally {
    floor.stop()
    durableFloor.stop()
  }
  const [floorRow, durableFloorRow, whoami, rest10] = rows
  printTable('Evaluator (1,000 servers × 20 tools), 10 ids', [baseline10, eval10], baseline10)
  printTable('Evaluator (1,000 servers × 20 tools), 50 ids', [baseline50, eval50], baseline50)
  printTable('REST round trip on loopback', [floorRow, durable, durableIsolated, durableFloorRow, whoami, rest10], floorRow)
  // checks are measured against the durable floor (contract §12): no verdict is answered before its record is on disk
  printTarget('REST preflight (10 ids) p50 ≤ durable floor p50 + 0.3 ms', `${fmt(rest10.p50)} vs ${fmt(durableFloorRow.p50)} (+${fmt(rest10.p50 - durableFloorRow.p50)})`, rest10.p50 <= durableFloorRow.p50 + 0.3)
  printTarget('REST preflight (10 ids) p95 ≤ durable floor p95 + 0.6 ms', `${fmt(rest10.p95)} vs ${fmt(durableFloorRow.p95)} (+${fmt(rest10.p95 - durableFloorRow.p95)})`, rest10.p95 <= durableFloorRow.p95 + 0.6)
  console.log(`  (for scale: the durable floor's p50 is ${(durableFloorRow.p50 / floorRow.p50).toFixed(2)}× the plain floor's; REST preflight's ${(rest10.p50 / floorRow.p50).toFixed(2)}×)`)
  return [baseline10, eval10, baseline50, eval50, durable, durableIsolated, floorRow, durableFloorRow, whoami, rest10]
}
