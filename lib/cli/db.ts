import { existsSync } from 'node:fs'
import { openReadOnlyStore, type Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
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
  return openReadOnlyStore(f)
}
