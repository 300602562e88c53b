// The surface report on large scopes: N tools on 25 servers, all served, descriptions built
// from a shared vocabulary so pairs overlap the way real catalogs do. Baseline: listing the same
// scope (what every tools/list pays), measured in the same run.
import { openDb } from '@/lib/server/database'
import { loadState } from '@/lib/state/load'
import { servedList, surfaceReport } from '@/lib/surface/report'
import { tempDbFile } from '@/tests/helpers/db'
import { fmt, printTable, printTarget, timeInterleaved } from './stats'

const SERVERS = 25
const VERBS = ['get', 'list', 'search', 'create', 'update', 'delete', 'archive', 'export', 'sync', 'summarize']
const NOUNS = ['issue', 'invoice', 'note', 'page', 'ticket', 'message', 'channel', 'file', 'deployment', 'customer', 'order', 'report', 'calendar', 'event', 'repository']
const QUALIFIERS = ['by id', 'matching a query', 'for a project', 'in a workspace', 'with its history', 'owned by a user', 'from the archive', 'as a PDF']

function surfaceState(n: number) {
  const servers = Array.from({ length: SERVERS }, (_, s) => ({
    name: `srv${s}`, connection: { state: 'ready' as const },
    tools: Array.from({ length: n / SERVERS }, (_, k) => {
      const i = s * (n / SERVERS) + k
      const verb = VERBS[i % VERBS.length]
      const noun = NOUNS[(i * 7) % NOUNS.length]
      return {
        name: `${verb}_${noun}_${i}`,
        description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${noun} ${QUALIFIERS[(i * 3) % QUALIFIERS.length]}; returns the ${noun} fields and ${NOUNS[(i * 11) % NOUNS.length]} references.`,
        input_schema: { type: 'object', properties: { id: { type: 'string', description: `the ${noun} id` } }, required: ['id'] },
      }
    }),
  }))
  return { version: 1, servers }
}

export async function benchSurface(): Promise<void> {
  for (const n of [250, 500, 1000]) {
    const db = openDb(tempDbFile('surface.db'))
    await loadState(db, surfaceState(n), 'bench')
    const scope = { kind: 'catalog' } as const
    const runs = n === 1000 ? 30 : 60
    global.gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    let peak = heapBefore
    const [list, report] = timeInterleaved(runs, {
      [`baseline: list the scope (${n} tools, every page)`]: () => void servedList(db, scope),
      [`surface report (${n} tools, ${(n * (n - 1)) / 2} pairs)`]: () => {
        surfaceReport(db, scope)
        peak = Math.max(peak, process.memoryUsage().heapUsed)
      },
    })
    report.note = `heap +${((peak - heapBefore) / 1048576).toFixed(1)} MiB peak over the run's start`
    printTable(`Surface report, ${n} tools in one scope`, [list, report], list)
    if (n === 1000) printTarget('surface report on 1,000 tools p95 ≤ 1 s', fmt(report.p95), report.p95 <= 1000)
    db.$client.close()
  }
}
