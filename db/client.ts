import 'server-only'
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import * as schema from './schema'
import { defaultDbFile, keyFileOf, projectRoot } from '@/lib/core/paths'

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database }
type DrizzleTx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** A transaction handle, carrying its connection (for statements prepared on it); queries and record writers accept either. */
export type Tx = DrizzleTx & { $client: Database.Database }
export type DbLike = Db | Tx

/**
 * Run `fn` so what it overwrites or deletes does not outlive it in the files: freed pages are
 * zeroed while it runs (secure_delete), and the WAL is emptied after.
 */
export function scrubbed<T>(db: Db, fn: () => T): T {
  db.$client.pragma('secure_delete = ON')
  const result = fn()
  db.$client.pragma('secure_delete = OFF')
  db.$client.pragma('wal_checkpoint(TRUNCATE)')
  return result
}

/** Run `fn` in one transaction on `db`, handing it a Tx (see writeTransaction for writes that may meet a foreign lock). */
export function transactionOn<T>(db: Db, fn: (tx: Tx) => T, behavior: 'deferred' | 'immediate' = 'deferred'): T {
  return db.transaction((tx) => fn(Object.assign(tx, { $client: db.$client })), { behavior })
}

/** How long opening (and migrating) may wait for another process's write lock. */
const OPEN_BUSY_MS = 5_000

/**
 * Open and migrate a state database (the app opens it through lib/server/database.ts, which
 * adds the data upgrades SQL cannot do). WAL lets readers run beside the one writer;
 * synchronous=FULL makes every commit durable, so an answered check is never lost on a crash.
 *
 * After opening, the busy timeout is 0: better-sqlite3 is synchronous, so a statement waiting
 * for another process's write lock would freeze the whole event loop. Reads never need that
 * lock under WAL; writes go through db/write.ts, which retries a busy lock asynchronously.
 */
export function openStore(file: string, upgrade?: (db: Db) => void): Db {
  if (file !== ':memory:') keepPrivate(file)
  const sqlite = new Database(file)
  sqlite.pragma(`busy_timeout = ${OPEN_BUSY_MS}`)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  const db = drizzle(sqlite, { schema }) as Db
  migrate(db, { migrationsFolder: path.join(projectRoot(), 'db', 'migrations') })
  upgrade?.(db) // the opener's data upgrades, still under the open busy timeout
  sqlite.pragma('busy_timeout = 0')
  return db
}

/** Close a store (the raw connection stays in db/, so callers need not know the engine). */
export const closeStore = (db: Db): void => { db.$client.close() }
/** Whether a store is still open. */
export const isStoreOpen = (db: Db): boolean => db.$client.open
/** The file a store lives in (':memory:' for a store in memory). */
export const storeFile = (db: Db): string => db.$client.name

/** A database file opened read-only and left as it is (not migrated, no upgrades): for looking only. */
export function openReadOnlyStore(file: string): Db {
  return drizzle(new Database(file, { readonly: true, fileMustExist: true }), { schema }) as Db
}

const PRIVATE_DIR = 0o700
const PRIVATE_FILE = 0o600

/** Narrow what we own to its owner alone (another user's file is theirs to set). */
function tighten(p: string, mode: number): void {
  const st = statSync(p, { throwIfNoEntry: false })
  if (st && (st.mode & 0o777 & ~mode) !== 0 && st.uid === process.getuid?.()) chmodSync(p, mode)
}

/**
 * The database holds upstream credentials: its folder is its owner's alone when toolgate makes
 * it (or it is the default data/ folder), and the file is 0600 before SQLite opens it — SQLite
 * gives the -wal and -shm files it makes later the database file's mode. Files and a default
 * folder left wider by an earlier version are narrowed.
 */
function keepPrivate(file: string): void {
  const dir = path.dirname(path.resolve(file))
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR })
  else if (dir === path.resolve(projectRoot(), 'data')) tighten(dir, PRIVATE_DIR)
  if (!existsSync(file)) {
    try {
      closeSync(openSync(file, 'wx', PRIVATE_FILE))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e // another process made it meanwhile
    }
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`, keyFileOf(file)]) tighten(f, PRIVATE_FILE)
}

const SHARED = Symbol.for('toolgate.db')
type WithDb = typeof globalThis & { [SHARED]?: Db }

/**
 * The process-wide database, opened lazily (never at import: `next build` must not create it);
 * the server opens it first, with its data upgrades (lib/server/start.ts).
 * Kept on globalThis so the server and the Next.js bundles in the same process share one
 * connection (each bundle has its own copy of this module).
 */
export function getDb(upgrade?: (db: Db) => void): Db {
  const g = globalThis as WithDb
  return (g[SHARED] ??= openStore(defaultDbFile(), upgrade))
}
