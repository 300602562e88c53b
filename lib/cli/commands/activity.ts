import { intFlag, UsageError } from '@/lib/cli/args'
import { statusColour, table, terminal, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import type { ActivityItem } from '@/lib/activity/present'
import type { Db } from '@/db/client'

function summary(it: ActivityItem): string {
  return it.type === 'preflight' ? it.data.tools.map((t) => `${t.id}=${t.reason ?? t.status}`).join(' ') : it.summary
}

async function activityStorageSummary(db: Db) {
  const { activityStorage } = await import('@/lib/activity/retention')
  const s = activityStorage(db)
  return { oldest_at: s.oldestAt === null ? null : new Date(s.oldestAt).toISOString(), records: s.records, db_bytes: s.dbBytes, wal_bytes: s.walBytes }
}

/** Why `activity list` found nothing, in words. */
function emptyBecause(requestId: string | undefined, type: string | undefined): string {
  if (requestId !== undefined) {
    return `toolgate: nothing was recorded under request id ${requestId}${type ? ` of type ${type}` : ''} in this database: every check and change is recorded before it is answered, so none ran here under it (or retention has pruned it)`
  }
  return type ? `toolgate: no ${type} records in this database` : 'toolgate: no activity recorded in this database yet'
}

export const activityCommands: Command[] = [
  command({
    name: 'activity list',
    summary: 'activity records, newest first',
    args: [],
    flags: {
      'request-id': { type: 'string', value: 'ID', description: 'only the records of one request (a preflight\'s request_id, a change\'s)' },
      type: { type: 'string', value: 'T', default: 'every type', description: 'only this record type: preflight, tool.call, tool.approved, server.unquarantined, …', complete: 'activity-type' },
      limit: { type: 'string', value: 'N', default: '50', description: 'at most this many records (1..10000)' },
    },
    examples: [
      ['toolgate activity list --type tool.approved', 'who approved what'],
      ['toolgate activity list --request-id req_01M8NQKNE02TH1ZNSQ22BHHZND -o json', 'the whole story of one request'],
    ],
    exits: { 0: 'listed', 1: EXIT_ERROR },
    run: async ({ values, json, db }) => {
      const [{ listActivity }, { presentRecords }] = await Promise.all([import('@/db/queries/activity'), import('@/lib/activity/present-records')])
      const items = presentRecords(db(), listActivity(db(), { requestId: values['request-id'], type: values.type, limit: intFlag('--limit', values.limit, 50, 1, 10_000) }))
      if (json) console.log(toJson(items))
      else console.log(table(['ID', 'TIME', 'REQUEST_ID', 'TYPE', 'SURFACE', 'ACTOR', 'VERDICT', 'SUMMARY'],
        items.map((it) => [String(it.id), it.at, it.request_id, it.type, it.surface ?? '-', it.actor, it.verdict ?? '-', summary(it)]),
        terminal(), (col, cell) => (col === 6 ? statusColour(cell) : undefined)))
      // an empty table says nothing of why: say it beside the table, where a person reads it (the JSON stays an array)
      if (!json && !items.length) console.error(emptyBecause(values['request-id'], values.type))
      return 0
    },
  }),
  command({
    name: 'activity show',
    summary: 'one record as JSON (the numeric id from activity list)',
    args: [{ name: '<id>', what: 'activity id' }],
    flags: {},
    examples: [['toolgate activity show 42', 'every field of record 42'], ['toolgate activity show 42 | jq .data.before', 'what it changed from']],
    exits: { 0: 'shown', 1: EXIT_ERROR },
    run: async ({ args: [raw], db }) => {
      const [{ getActivity }, { presentRecords }] = await Promise.all([import('@/db/queries/activity'), import('@/lib/activity/present-records')])
      const id = Number(raw)
      if (!Number.isInteger(id)) throw new UsageError(`activity id must be an integer, not "${raw}"`)
      const row = getActivity(db(), id)
      if (!row) throw new UsageError(`no activity record ${id}`, 'toolgate activity list shows the records and their ids')
      console.log(toJson(presentRecords(db(), [row])[0]))
      return 0
    },
  }),
  command({
    name: 'activity prune',
    summary: 'delete records older than a date, or by the activity_retention_days setting',
    args: [],
    flags: { before: { type: 'string', value: 'DATE', default: 'now minus activity_retention_days', description: 'delete records older than this: 2026-09-01 or an ISO date-time' } },
    examples: [['toolgate activity prune', 'apply the retention setting now'], ['toolgate activity prune --before 2026-09-01 -o json', 'delete everything before September; counts as JSON']],
    exits: { 0: 'pruned (possibly nothing)', 1: EXIT_ERROR },
    run: async ({ values, json, db, ctx }) => {
      const [{ listActivity }, { pruneActivity, retentionCutoff }] = await Promise.all([import('@/db/queries/activity'), import('@/lib/activity/retention')])
      let before: number
      if (values.before !== undefined) {
        before = Date.parse(values.before)
        if (Number.isNaN(before)) throw new UsageError(`--before must be a date or date-time (e.g. 2026-09-01 or 2026-09-01T12:00:00Z), not "${values.before}"`)
      } else {
        const cutoff = retentionCutoff(db())
        if (cutoff === null) throw new UsageError('activity_retention_days is null (keep everything): give --before DATE to prune anyway')
        before = cutoff
      }
      const deleted = await pruneActivity(db(), before, ctx.actor, (n) => { if (process.stderr.isTTY) process.stderr.write(`\rpruned ${n} records…`) }, ctx.requestId)
      if (process.stderr.isTTY) process.stderr.write('\n')
      // the prune is on the record only when it deleted something
      const [record] = deleted ? listActivity(db(), { requestId: ctx.requestId, type: 'activity.pruned', limit: 1 }) : []
      const result = { before: new Date(before).toISOString(), deleted, ...(await activityStorageSummary(db())), activity_id: record?.id ?? null, request_id: record ? ctx.requestId : null }
      if (json) console.log(toJson(result))
      else console.log(`pruned ${deleted} record${deleted === 1 ? '' : 's'} older than ${result.before}; oldest kept: ${result.oldest_at ?? '(none)'}; ${result.records} records, database ${result.db_bytes} bytes`)
      return 0
    },
  }),
  command({
    name: 'activity verify',
    summary: 'check the tamper-evident chain: ok, or the first record that does not fit',
    args: [],
    flags: {},
    examples: [
      ['toolgate activity verify', 'ok, how many records, and the chain head'],
      ['toolgate activity verify -o json | jq .head', 'the head to keep elsewhere and compare later'],
    ],
    exits: { 0: 'the chain is whole', 1: EXIT_ERROR, 3: 'a record does not fit the chain (named on stdout)' },
    run: async ({ json, db }) => {
      const [{ chainLinks }, { verifyChain }] = await Promise.all([import('@/db/queries/activity'), import('@/lib/core/activity-chain')])
      const report = verifyChain(chainLinks(db()))
      if (json) {
        console.log(toJson(report.ok
          ? { ok: true, records: report.records, before_chain: report.beforeChain, anchor: report.anchor && { id: report.anchor.id, prev_hash: report.anchor.prevHash }, head: report.head }
          : report))
      }
      else if (!report.ok) console.log(`broken at record ${report.id}: ${report.problem}`)
      else {
        const anchored = report.anchor ? `from record ${report.anchor.id}${report.anchor.prevHash ? ' (records before it were pruned)' : ''}` : 'no chained records yet'
        const before = report.beforeChain ? `; ${report.beforeChain} earlier record${report.beforeChain === 1 ? '' : 's'} predate the chain` : ''
        console.log(`ok: ${report.records} records, chained ${anchored}${before}; head ${report.head ? `${report.head.id} ${report.head.hash}` : '(none)'}`)
      }
      return report.ok ? 0 : 3
    },
  }),
]
