// The dashboard benchmark: page loads, the server-action preflight, and the activity list at
// 1,000,000 records. Call benchDashboard({ url, apiKey, dbFile }) with the app running on
// `url` over `dbFile` (bench/index.ts sets that up). Timings are reported, never asserted.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { indexActivityServers } from '@/db/queries/activity-index'
import { transactionOn, type Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { deleteOldest } from '@/db/queries/activity'
import { PRUNE_BATCH } from '@/lib/activity/retention'
import { issueSession } from '@/lib/auth/operator-sessions'
import { ensureBootstrapAdmin } from '@/lib/auth/accounts'
import { writeTransaction } from '@/db/write'
import { activityPage } from '@/lib/dashboard/activity'
import { dashboardPreflight } from '@/lib/dashboard/preflight'
import { SESSION_COOKIE, SESSION_KEY_HEADER } from '@/lib/dashboard/session-cookie'
import { tempDbFile } from '@/tests/helpers/db'
import { startServer } from '@/tests/helpers/server'
import { readyIds } from './state'
import { printTable, timeAsync, timeSync, type Row } from './stats'
import { reasonVerdicts } from '@/lib/preflight/taxonomy'

const MILLION = 1_000_000

/** The id the build gave a server action (it changes with every build). */
function actionId(exportedName: string): string {
  const distDir = process.env.NEXT_DIST_DIR || '.next'
  const manifest = JSON.parse(readFileSync(path.join(process.cwd(), distDir, 'server', 'server-reference-manifest.json'), 'utf8'))
  const hit = Object.entries(manifest.node as Record<string, { exportedName: string }>).find(([, v]) => v.exportedName === exportedName)
  if (!hit) throw new Error(`server action ${exportedName} is not in the ${distDir} build`)
  return hit[0]
}

/** A signed-in operator's cookie and session key, minted the way sign-in mints them (the bench knows the key's hash). */
async function sessionHeaders(db: Db): Promise<Record<string, string>> {
  const admin = await writeTransaction(db, (tx) => ensureBootstrapAdmin(tx))
  const { value, key } = await issueSession(db, admin, 'break-glass')
  return { cookie: `${SESSION_COOKIE}=${value}`, [SESSION_KEY_HEADER]: key }
}

async function getHtml(url: string, session: Record<string, string>): Promise<void> {
  const res = await fetch(url, { headers: session, redirect: 'manual' })
  const html = await res.text()
  if (res.status !== 200 || !html.includes('</html>')) throw new Error(`${url} answered ${res.status}`)
}

/**
 * 1,000,000 activity records in one INSERT … SELECT over a recursive counter, inside one
 * transaction: ~3 records per request id, mostly ready checks, some blocked/unknown/degraded,
 * and operator actions in between, the way a busy proxy's log looks.
 */
function fillActivity(db: Db, n: number): void {
  const start = Date.now() - n * 10
  db.$client.transaction(() => {
    db.$client.prepare(`
      with recursive c(i) as (select 0 union all select i + 1 from c where i + 1 < ?)
      insert into activity (request_id, at, type, surface, actor, tier, verdict, server, data)
      select 'req_bench_' || (i / 3), ? + i * 10,
        case when i % 10 = 9 then 'tool.approved' else 'preflight' end,
        case when i % 10 = 9 then null else (case i % 3 when 0 then 'rest' when 1 then 'cli' else 'mcp-check' end) end,
        case when i % 10 = 9 then 'operator' else 'token:bench' end,
        case when i % 10 = 9 then null else 'agent' end,
        case when i % 10 = 9 then null when i % 20 = 0 then 'blocked' when i % 50 = 1 then 'unknown_ids' when i % 25 = 2 then 'degraded_retryable' else 'ready' end,
        case when i % 10 = 9 then 'srv' || (i % 1000) else null end,
        json_object('tools', json_array(json_object('id', 'srv' || (i % 1000) || ':tool1', 'status', 'ready')), 'ids_raw', 1, 'ids_unique', 1)
      from c`).run(n, start)
  })()
}

const plan = (db: Db, sql: string, ...args: unknown[]) =>
  (db.$client.prepare(`explain query plan ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ')

export async function benchDashboard({ url, apiKey, dbFile }: { url: string; apiKey: string; dbFile: string }): Promise<Row[]> {
  void apiKey // the dashboard signs in with the operator key; the bench mints the same session from its hash
  const db = openDb(dbFile)
  const session = await sessionHeaders(db)
  const ten = (i: number) => readyIds(10, i)
  const form = (i: number) => ({ ids: ten(i), token: null, profile: null, policy: {} })

  const pages = [
    await timeAsync('GET /preflight (HTML complete)', 200, () => getHtml(`${url}/preflight`, session), 20),
    await timeAsync('GET /activity (HTML complete)', 200, () => getHtml(`${url}/activity`, session), 20),
  ]
  printTable('Dashboard pages', pages)

  const runPreflight = actionId('runPreflight')
  const preflight = [
    timeSync('dashboardPreflight(), 10 ids (lib: evaluate + durable record)', 2000, (i) => dashboardPreflight(db, form(i), { actor: 'bench' })),
    await timeAsync('server action runPreflight, 10 ids (HTTP round trip)', 500, async (i) => {
      const res = await fetch(`${url}/preflight`, {
        method: 'POST',
        headers: { ...session, 'next-action': runPreflight, accept: 'text/x-component', 'content-type': 'text/plain;charset=UTF-8' },
        body: JSON.stringify([form(i)]),
      })
      const text = await res.text()
      if (res.status !== 200 || !text.includes('"ok":true')) throw new Error(`server action answered ${res.status}: ${text.slice(0, 200)}`)
    }),
  ]
  printTable('Server-action preflight', preflight)

  // 1,000,000 records in a copy of the database, and the app started on that copy
  const copy = tempDbFile('bench-activity.db')
  db.$client.exec(`vacuum into '${copy.replace(/'/g, "''")}'`)
  const big = openDb(copy)
  const t = performance.now()
  fillActivity(big, MILLION)
  console.log(`\n${MILLION.toLocaleString()} activity records inserted in ${((performance.now() - t) / 1000).toFixed(1)} s (${copy})`)
  // the server filter's index and the chart's per-minute counts follow the log in batches: caught up first, as on a running server
  const derived = performance.now()
  while (await indexActivityServers(big, reasonVerdicts, 50_000)) { /* next batch */ }
  console.log(`derived data (server index, checks per minute) caught up in ${((performance.now() - derived) / 1000).toFixed(1)} s`)
  // a running server checkpoints every 500 ms, so its log never holds a million uncopied writes: neither does this copy
  big.$client.pragma('wal_checkpoint(TRUNCATE)')
  const someRequest = `req_bench_${Math.floor(MILLION / 7)}`
  console.log(`plan, by request_id: ${plan(big, 'select * from activity where request_id = ? order by id desc limit 51', someRequest)}`)
  console.log(`plan, by verdict:    ${plan(big, 'select * from activity where verdict = ? order by id desc limit 51', 'blocked')}`)
  console.log(`plan, time window:   ${plan(big, 'select id from activity where at >= ? order by at limit 1', 0)}`)
  const deep = Math.floor(MILLION / 2)
  const lib = [
    timeSync('activityPage(request_id) at 1M (lib)', 2000, (i) => activityPage(big, { request_id: `req_bench_${(i * 7919) % (MILLION / 3)}` })),
    timeSync('activityPage(verdict=blocked) at 1M, first page (lib)', 500, () => activityPage(big, { verdict: 'blocked' })),
    timeSync('activityPage(verdict=blocked) at 1M, deep page (lib)', 500, (i) => activityPage(big, { verdict: 'blocked', before: deep - i * 97 })),
    timeSync('activityPage(verdict=unknown_ids, time window) at 1M (lib)', 500, () => activityPage(big, { verdict: 'unknown_ids', from: Date.now() - MILLION * 5, to: Date.now() - MILLION * 2 })),
  ]
  const server = await startServer({ TOOLGATE_DB: copy, TOOLGATE_API_KEY: `${apiKey}` })
  try {
    const bigSession = await sessionHeaders(big)
    lib.push(
      await timeAsync('GET /activity?request_id=… at 1M (HTML complete)', 200, (i) => getHtml(`${server.url}/activity?request_id=req_bench_${(i * 7919) % (MILLION / 3)}`, bigSession), 20),
      await timeAsync('GET /activity?verdict=blocked at 1M (HTML complete)', 200, () => getHtml(`${server.url}/activity?verdict=blocked`, bigSession), 20),
      await timeAsync('GET /activity at 1M, no filter: the page as it opens (HTML complete)', 200, () => getHtml(`${server.url}/activity`, bigSession), 20),
    )
  } finally {
    await server.stop()
  }
  // retention at this size: one prune batch, the records with their server links (a scan per record made this minutes)
  lib.push(timeSync(`prune one batch (the ${PRUNE_BATCH} oldest records, their links too) at 1M`, 10, () => transactionOn(big, (tx) => deleteOldest(tx, reasonVerdicts, Date.now(), PRUNE_BATCH), 'immediate'), 1))
  printTable('Activity at 1,000,000 records', lib)
  big.$client.close()
  return [...pages, ...preflight, ...lib]
}
