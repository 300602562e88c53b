import { cliActor, one, openCliDb, outputFormat, parse, UsageError } from '@/lib/cli/args'
import { table } from '@/lib/cli/output'
import { getActivity, listActivity } from '@/db/queries/activity'
import { presentActivity, summarize } from '@/lib/activity/present'
import type { ActivityRecord } from '@/lib/activity/vocabulary'
import { activityStorage, pruneActivity, retentionCutoff } from '@/lib/activity/retention'

function summary(r: ActivityRecord): string {
  return r.type === 'preflight' ? r.data.tools.map((t) => `${t.id}=${t.reason ?? t.status}`).join(' ') : summarize(r)
}

export async function activityCommand(sub: string | undefined, argv: string[]): Promise<number> {
  if (sub === 'list') {
    const { values } = parse(argv, { 'request-id': { type: 'string' }, type: { type: 'string' }, limit: { type: 'string' } })
    const limit = values.limit === undefined ? 50 : Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError(`--limit must be an integer 1..10000, not "${values.limit}"`)
    const rows = listActivity(openCliDb(values.db), { requestId: values['request-id'], type: values.type, limit })
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(rows.map(presentActivity), null, 2))
    else console.log(table(['ID', 'TIME', 'REQUEST_ID', 'TYPE', 'SURFACE', 'ACTOR', 'VERDICT', 'SUMMARY'],
      rows.map((r) => [String(r.id), new Date(r.at).toISOString(), r.requestId, r.type, r.surface ?? '-', r.actor, r.verdict ?? '-', summary(r)])))
    return 0
  }
  if (sub === 'show') {
    const { values, positionals } = parse(argv, {})
    const id = Number(one(positionals, 'activity id'))
    if (!Number.isInteger(id)) throw new UsageError(`activity id must be an integer, not "${positionals[0]}"`)
    const row = getActivity(openCliDb(values.db), id)
    if (!row) throw new UsageError(`no activity record ${id}`)
    console.log(JSON.stringify(presentActivity(row), null, 2))
    return 0
  }
  if (sub === 'prune') {
    const { values } = parse(argv, { before: { type: 'string' } })
    const db = openCliDb(values.db)
    let before: number
    if (values.before !== undefined) {
      before = Date.parse(values.before)
      if (Number.isNaN(before)) throw new UsageError(`--before must be a date or date-time (e.g. 2026-09-01 or 2026-09-01T12:00:00Z), not "${values.before}"`)
    } else {
      const cutoff = retentionCutoff(db)
      if (cutoff === null) throw new UsageError('activity_retention_days is null (keep everything): give --before DATE to prune anyway')
      before = cutoff
    }
    const deleted = await pruneActivity(db, before, cliActor(), (n) => { if (process.stderr.isTTY) process.stderr.write(`\rpruned ${n} records…`) })
    if (process.stderr.isTTY) process.stderr.write('\n')
    const result = { before: new Date(before).toISOString(), deleted, ...activityStorageSummary(db) }
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(result, null, 2))
    else console.log(`pruned ${deleted} record${deleted === 1 ? '' : 's'} older than ${result.before}; oldest kept: ${result.oldest_at ?? '(none)'}; ${result.records} records, database ${result.db_bytes} bytes`)
    return 0
  }
  throw new UsageError('usage: toolgate activity list [--request-id ID] [--type T] [--limit N] [-o json] | activity show <id> | activity prune [--before DATE]')
}

function activityStorageSummary(db: Parameters<typeof activityStorage>[0]) {
  const s = activityStorage(db)
  return { oldest_at: s.oldestAt === null ? null : new Date(s.oldestAt).toISOString(), records: s.records, db_bytes: s.dbBytes, wal_bytes: s.walBytes }
}
