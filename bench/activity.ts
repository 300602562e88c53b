// The Activity page's queries at 100,000 events (130,000 records; issue 26): each as the page runs it (lib),
// interleaved with a primary-key page read as the same-run baseline. The log is written in a temp
// database, its derived data caught up and its planner statistics taken, as on a running server.
// Timings are reported, never asserted.
import { indexActivityServers } from '@/db/queries/activity-index'
import { requestIdsStartingWith } from '@/db/queries/activity'
import type { Db } from '@/db/client'
import { mintRequestId } from '@/lib/activity/request-id'
import { activityFacets, activityPage, verdictChart } from '@/lib/dashboard/activity'
import { reasonVerdicts } from '@/lib/preflight/taxonomy'
import { freshDb, tempDbFile } from '@/tests/helpers/db'
import { printTable, timeInterleaved, type Row } from './stats'

const EVENTS = 100_000
const DAY = 86_400_000
// one record in RARE_EVERY is the rare actor's: 10 of 100,000
const RARE_EVERY = 10_000

const refused = (id: string, reason: string) => ({ id, status: 'unavailable', reason })

/**
 * A week of a busy log, oldest first: six in ten events are checks by 20 agent tokens (mostly
 * ready; some blocked, some with an unknown id beside nine blocked tools, some retryable), three
 * are tool calls (two records each: the call and its outcome), one an operator's approval; ids
 * minted as the server mints them.
 */
function fillLog(db: Db, now: number): string {
  const insert = db.$client.prepare(`insert into activity (request_id, at, type, surface, actor, tier, verdict, server, data) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const start = now - 7 * DAY
  let last = ''
  db.$client.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const at = start + Math.floor((i / EVENTS) * 7 * DAY)
      const requestId = (last = mintRequestId(at))
      const actor = i % RARE_EVERY === 5 ? 'token:rare' : `token:agent${i % 20}`
      const kind = i % 10
      if (kind < 6) {
        const [verdict, tools] = i % 50 === 1 ? ['unknown_ids', [refused('billing:nope', 'not_found'), ...Array.from({ length: 9 }, (_, k) => refused(`billing:t${k}`, 'server_not_in_scope'))]]
          : i % 20 === 0 ? ['blocked', [refused(`srv${i % 200}:tool1`, 'tool_pending_approval')]]
            : i % 25 === 2 ? ['degraded_retryable', [refused(`srv${i % 200}:tool1`, 'server_initializing')]]
              : ['ready', [{ id: `srv${i % 200}:tool1`, status: 'ready' }]]
        insert.run(requestId, at, 'preflight', 'rest', actor, 'agent', verdict, null, JSON.stringify({ ids_raw: tools.length, ids_unique: tools.length, tools, duration_ms: 1 }))
      } else if (kind < 9) {
        // in two parts, as the runtime records a forwarded call: the call, then its outcome naming it
        const target = `srv${i % 200}:tool1`
        const call = insert.run(requestId, at, 'tool.call', 'mcp-shape-a', actor, 'agent', null, `srv${i % 200}`, JSON.stringify({ target, arguments_hash: '0'.repeat(64) })).lastInsertRowid
        insert.run(requestId, at + 3, 'tool.call_outcome', 'mcp-shape-a', actor, 'agent', null, `srv${i % 200}`,
          JSON.stringify({ target, call: Number(call), outcome: i % 30 === 7 ? 'tool_error' : 'ok', duration_ms: 3 }))
      } else {
        insert.run(requestId, at, 'tool.approved', null, 'operator', 'operator', null, `srv${i % 200}`, JSON.stringify({ target: `srv${i % 200}:tool1` }))
      }
    }
  })()
  return last
}

export async function benchActivity(): Promise<Row[]> {
  const { db, file } = freshDb(tempDbFile('bench-activity-100k.db'))
  const now = Date.now()
  let t = performance.now()
  const newestRequest = fillLog(db, now)
  const records = db.$client.prepare('select count(*) from activity').pluck().get() as number
  console.log(`\n${EVENTS.toLocaleString()} events, ${records.toLocaleString()} activity records, written in ${((performance.now() - t) / 1000).toFixed(1)} s (${file})`)
  t = performance.now()
  while (await indexActivityServers(db, reasonVerdicts, 50_000)) { /* next batch */ }
  db.$client.exec('ANALYZE') // what the upkeep worker gives a server connection (db/checkpointer.ts)
  console.log(`derived data caught up and statistics taken in ${((performance.now() - t) / 1000).toFixed(1)} s`)

  const pageRead = db.$client.prepare('select * from activity where id < ? order by id desc limit 51')
  // a prefix of a minted id: its time part, shared by the newest few thousand requests
  const prefix = newestRequest.slice(0, 9)
  const rows = timeInterleaved(100, {
    'baseline: one page by primary key (51 rows, raw SQL)': (i) => pageRead.all(EVENTS - i * 97),
    'newest page (activityPage, no filter)': () => activityPage(db, {}),
    'type filter: tool.approved': () => activityPage(db, { type: 'tool.approved' }),
    'actor filter: a rare token (10 records)': () => activityPage(db, { token: 'rare' }),
    'request-id prefix (8 ids, header search)': () => requestIdsStartingWith(db, prefix, 8),
    'free text q: a tool id (hits)': () => activityPage(db, { q: 'billing:nope' }),
    'free text q: a text on no record (whole log)': () => activityPage(db, { q: 'no-such-text' }),
    'facets (type, actor, verdict; latest 10,000)': () => activityFacets(db, {}),
    'facets of a rare token': () => activityFacets(db, { token: 'rare' }),
    'chart, 24 h (checks by class and calls)': () => verdictChart(db, {}, '24h', now),
    'chart, 7 d': () => verdictChart(db, {}, '7d', now),
    'chart, 7 d, type=preflight (checks alone: the minutes)': () => verdictChart(db, { type: 'preflight' }, '7d', now),
    'chart, type=tool.call (calls alone)': () => verdictChart(db, { type: 'tool.call' }, '24h', now),
    'chart, 24 h, verdict=blocked (the records counted)': () => verdictChart(db, { verdict: 'blocked' }, '24h', now),
  })
  printTable(`Activity queries at ${EVENTS.toLocaleString()} events (${records.toLocaleString()} records) (interleaved, same run)`, rows, rows[0])
  db.$client.close()
  return rows
}
