import 'server-only'
import { SqliteError } from 'better-sqlite3'
import { ToolgateError, unavailableError } from '@/lib/core/errors'
import { transactionOn, type Db, type Tx } from './client'

/** How long a write waits for a lock held by another process before it fails closed. */
export const WRITE_WAIT_MS = 5_000

const isBusy = (e: unknown) => e instanceof SqliteError && (e.code.startsWith('SQLITE_BUSY') || e.code.startsWith('SQLITE_LOCKED'))

/**
 * In words, why a write failed because of the database file itself — locked by another
 * process, a full disk, read-only, unwritable — for an answer that says what to do; null when
 * the failure is anything else (a bug is not dressed up as an outage).
 */
export function storageFault(e: unknown): string | null {
  if (e instanceof ToolgateError && e.kind === 'unavailable') return e.message
  if (!(e instanceof SqliteError)) return null
  if (isBusy(e)) return 'the state database is locked by another process'
  if (e.code.startsWith('SQLITE_FULL')) return 'the disk that holds the state database is full'
  if (e.code.startsWith('SQLITE_READONLY')) return 'the state database is read-only'
  if (e.code.startsWith('SQLITE_IOERR') || e.code.startsWith('SQLITE_CANTOPEN')) return `the state database could not be written (${e.code})`
  return null
}
/**
 * Prove a write would go through, keeping none: take the write lock (waiting up to `waitMs` for
 * another process's, as a write would) and roll back. Throws what stopped it.
 */
export function proveWritable(db: Db, waitMs: number): void {
  db.$client.pragma(`busy_timeout = ${waitMs}`)
  try {
    db.$client.exec('begin immediate; update settings set id = id where id = 1; rollback')
  } catch (e) {
    if (db.$client.inTransaction) db.$client.exec('rollback')
    throw e
  } finally {
    db.$client.pragma('busy_timeout = 0')
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const RECORD_CHANGES = Symbol.for('toolgate.record-changes')
type Counted = Db['$client'] & { [RECORD_CHANGES]?: number }
const changeCounters = new WeakMap<Db['$client'], { get(): unknown }>()
/** Rows this connection has changed since it opened (SQLite's total_changes()), by whatever path. */
function totalChanges(db: Db): number {
  let s = changeCounters.get(db.$client)
  if (!s) changeCounters.set(db.$client, (s = db.$client.prepare('select total_changes()').pluck()))
  return s.get() as number
}

/**
 * Rows this connection has changed outside writeRecords: every change that may touch what is
 * served — through writeTransaction or any other write, however it is made. With SQLite's
 * data_version (another connection's commits) it tells whether anything served can have changed
 * since it was last read. The records' share is kept on the connection, which the server and the
 * Next.js bundles share (each bundle has its own copy of this module).
 */
export const servedWrites = (db: Db): number => totalChanges(db) - ((db.$client as Counted)[RECORD_CHANGES] ?? 0)

/**
 * Run `fn` in one IMMEDIATE transaction. The connection's busy timeout is 0, so a lock held by
 * another process makes BEGIN fail at once instead of blocking the event loop; the attempt is
 * then repeated after a short pause, until `waitMs` has passed — then the write fails closed
 * (503 / -32603 / exit 1). Nothing of `fn` runs before the lock is held, so a retry repeats
 * nothing. `fn` is synchronous: the transaction never spans an await.
 */
export function writeTransaction<T>(db: Db, fn: (tx: Tx) => T, waitMs = WRITE_WAIT_MS): Promise<T> {
  return write(db, fn, waitMs, true)
}

/**
 * writeTransaction for what nothing served is made of — activity records and their index, log
 * lines, use counts, the runtime lease — so the steady stream of them does not make every
 * listen stream read its listings again (lib/mcp/listen.ts).
 */
export function writeRecords<T>(db: Db, fn: (tx: Tx) => T, waitMs = WRITE_WAIT_MS): Promise<T> {
  return write(db, fn, waitMs, false)
}

/** fn in one IMMEDIATE transaction; a record's changes are counted apart from what is served (servedWrites). */
function commit<T>(db: Db, fn: (tx: Tx) => T, served: boolean): T {
  if (served) return transactionOn(db, fn, 'immediate')
  const before = totalChanges(db)
  try {
    return transactionOn(db, fn, 'immediate')
  } finally {
    const client = db.$client as Counted
    client[RECORD_CHANGES] = (client[RECORD_CHANGES] ?? 0) + totalChanges(db) - before
  }
}

async function write<T>(db: Db, fn: (tx: Tx) => T, waitMs: number, served: boolean): Promise<T> {
  const deadline = Date.now() + waitMs
  for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
    try {
      return commit(db, fn, served)
    } catch (e) {
      if (!isBusy(e)) throw e
      if (Date.now() + pause > deadline) throw unavailableError(`the state database stayed locked by another process for ${waitMs} ms`)
      await sleep(pause)
    }
  }
}
