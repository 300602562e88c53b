import 'server-only'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Db } from './client'
import { logError } from '@/lib/core/log'
import { projectRoot } from '@/lib/core/paths'

/** How often the checkpointer copies the write-ahead log into the database file. */
const CHECKPOINT_MS = 500
/** The server's own connection still checkpoints past this many WAL pages, should the worker fall behind. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000

/** How often the worker refreshes the query planner's statistics (SQLite's own PRAGMA optimize). */
const OPTIMIZE_MS = 60 * 60 * 1000
/** The activity log's statistics are kept from this size on (below it, the planner's defaults serve well). */
export const STATISTICS_MIN_ROWS = 10_000

// Runs in the worker: its own connection, a PASSIVE checkpoint (it never waits on, or blocks,
// readers and the writer) every CHECKPOINT_MS; a busy or failed round is simply the next one's work.
// At start and hourly it also lets SQLite refresh its statistics (sampled, so it takes a fraction
// of a second at a million records): without them the planner reaches one request's checks
// through the index of every check instead of the request's own. A connection reads statistics
// only when it loads the schema, so the server's own is then told to reload them.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('busy_timeout = 0')
// true when done; a busy lock (the writer is committing) is a retry, anything else is reported
const attemptWith = (fn) => {
  try { fn(); return true } catch (e) {
    const busy = String(e && e.code).startsWith('SQLITE_BUSY')
    if (!busy) parentPort.postMessage({ failed: String(e && e.message || e) })
    return !busy
  }
}
const attempt = (pragmas) => attemptWith(() => { for (const p of pragmas) db.pragma(p) })
// Statistics are kept only where they surely help: the activity log, once it is large. Taken
// while a table is small, they go on calling it small as it grows, and the planner then scans
// where it should look up (one key at a time, over every row) until the next refresh; without
// them it assumes a large table and uses the indexes.
const keepUseful = () => {
  db.prepare("delete from sqlite_stat1 where tbl <> 'activity' or cast(stat as integer) < ?").run(workerData.minRows)
  if (db.prepare("select 1 from sqlite_schema where name = 'sqlite_stat4'").get()) {
    db.exec("delete from sqlite_stat4 where tbl not in (select tbl from sqlite_stat1)")
  }
}
const optimize = () => {
  if (attempt(['analysis_limit = 1000', 'optimize = 0x10002']) && attemptWith(keepUseful)) parentPort.postMessage({ analyzed: true })
  else retry = setTimeout(optimize, 1000)
}
let retry
optimize()
const timers = [
  setInterval(() => attempt(['wal_checkpoint(PASSIVE)']), workerData.everyMs),
  setInterval(optimize, workerData.optimizeMs),
]
parentPort.on('message', () => { timers.forEach(clearInterval); clearTimeout(retry); db.close(); process.exit(0) })
`

/**
 * Checkpoints off the request path. With SQLite's default, the commit that crosses 1,000 WAL
 * pages copies them all into the database file and fsyncs it — tens of milliseconds on the
 * event loop, for whichever check happened to commit then. A worker thread does that work
 * instead, on its own connection, so a check's commit is its own records and one fsync.
 */
export function startCheckpointer(db: Db): { stop: () => Promise<void> } {
  const file = db.$client.name
  if (file === ':memory:' || file === '') return { stop: async () => undefined }
  db.$client.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`)
  const driver = createRequire(path.join(projectRoot(), 'package.json')).resolve('better-sqlite3')
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, everyMs: CHECKPOINT_MS, optimizeMs: OPTIMIZE_MS, minRows: STATISTICS_MIN_ROWS } })
  let warned = false
  const reloadStatistics = (): void => {
    if (!db.$client.open) return
    try {
      db.$client.exec('ANALYZE sqlite_schema')
    } catch (e) {
      // busy: another writer, so a moment later; anything else, the next hour's round
      if (String((e as { code?: unknown }).code).startsWith('SQLITE_BUSY')) setTimeout(reloadStatistics, 1_000).unref()
    }
  }
  worker.on('message', (m: { analyzed?: true; failed?: string }) => {
    if (m.analyzed) return reloadStatistics()
    if (!warned) logError(`toolgate: database upkeep (WAL checkpoint or statistics) failed; the next round retries: ${m.failed}`)
    warned = true
  })
  worker.on('error', (e) => {
    logError(`toolgate: the WAL checkpointer stopped: ${e.message}`)
    // the server's own connection checkpoints again, as SQLite does by default
    if (db.$client.open) db.$client.pragma('wal_autocheckpoint = 1000')
  })
  worker.unref()
  return {
    // held (ref'd) while it stops: the process must not end before the worker has closed its connection
    stop: () => new Promise<void>((resolve) => {
      const giveUp = setTimeout(resolve, 2_000)
      worker.once('exit', () => { clearTimeout(giveUp); resolve() })
      worker.ref()
      worker.postMessage('stop')
    }),
  }
}
