import { mkdirSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import * as schema from './schema'
import { defaultDbFile, projectRoot } from '../lib/paths'

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database }
/** A transaction handle; queries and record writers accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type DbLike = Db | Tx

/**
 * Open (and migrate) a state database. WAL lets readers run beside the one writer;
 * synchronous=FULL makes every commit durable, so an answered check is never lost on a crash.
 */
export function openDb(file: string): Db {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true })
  const sqlite = new Database(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  const db = drizzle(sqlite, { schema }) as Db
  migrate(db, { migrationsFolder: path.join(projectRoot(), 'db', 'migrations') })
  sqlite.prepare('INSERT OR IGNORE INTO settings (id) VALUES (1)').run()
  return db
}

let shared: Db | undefined

/** The process-wide database, opened lazily (never at import: `next build` must not create it). */
export function getDb(): Db {
  return (shared ??= openDb(defaultDbFile()))
}
