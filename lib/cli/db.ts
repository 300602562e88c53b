import { existsSync } from 'node:fs'
import { openReadOnlyStore, type Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { databaseOf } from '@/lib/server/address'
import { cliDbFile, UsageError } from './args'

/**
 * The database a command works on (--db, else $TOOLGATE_DB, else ./data/toolgate.db), opened and
 * migrated. A file --db or $TOOLGATE_DB names must exist unless the command makes stores
 * (`mayCreate`): a typo would otherwise become a new, empty database that answers as if it were
 * the real one. The default file is still made on first use, as serve would make it.
 */
export function openCliDb(file: string | undefined, mayCreate = true): Db {
  const { file: f, from } = databaseOf(file)
  if (!mayCreate && from !== 'default' && !existsSync(f)) {
    throw new UsageError(`no toolgate database at ${f} (from ${from === '--db' ? '--db' : '$TOOLGATE_DB'}): check --db / TOOLGATE_DB (toolgate serve creates one)`,
      `toolgate serve --db ${f} starts a new database there; toolgate state load FILE --db ${f} fills a new one from a state file`)
  }
  return openDb(f)
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
