import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { openDb, type Db } from '@/db/client'
import * as schema from '@/db/schema'
import { cliDbFile } from './args'

/** The database a command works on (--db, else $TOOLGATE_DB, else ./data/toolgate.db), opened and migrated. */
export function openCliDb(file: string | undefined): Db {
  return openDb(cliDbFile(file))
}

/**
 * The database opened read-only and left as it is (no migration), or null when there is no
 * file: for commands that only look (version, completion) and must never create or change one.
 */
export function openReadOnly(file: string | undefined): Db | null {
  const f = cliDbFile(file)
  if (!existsSync(f)) return null
  return drizzle(new Database(f, { readonly: true, fileMustExist: true }), { schema }) as Db
}
