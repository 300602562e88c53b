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

/**
 * Run `fn` in one IMMEDIATE transaction. The connection's busy timeout is 0, so a lock held by
 * another process makes BEGIN fail at once instead of blocking the event loop; the attempt is
 * then repeated after a short pause, until `waitMs` has passed — then the write fails closed
 * (503 / -32603 / exit 1). Nothing of `fn` runs before the lock is held, so a retry repeats
 * nothing. `fn` is synchronous: the transaction never spans an await.
 */
export async function writeTransaction<T>(db: Db, fn: (tx: Tx) => T, waitMs = WRITE_WAIT_MS): Promise<T> {
  const deadline = Date.now() + waitMs
  for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
    try {
      return transactionOn(db, fn, 'immediate')
    } catch (e) {
      if (!isBusy(e)) throw e
      if (Date.now() + pause > deadline) throw unavailableError(`the state database stayed locked by another process for ${waitMs} ms`)
      await sleep(pause)
    }
  }
}
