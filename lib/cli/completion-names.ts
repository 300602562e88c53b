import { profileList, tokens } from '@/db/queries/access'
import { serverNames } from '@/db/queries/servers'
import { readSettings } from '@/db/queries/settings'
import { suggestToolIds } from '@/db/queries/tools'
import { closeStore, type Db } from '@/db/client'
import { presentSettings } from '@/lib/admin/settings'
import { listCalls } from '@/db/queries/calls'
import { openReadOnly } from './db'

export type NameKind = 'server' | 'tool' | 'call' | 'setting' | 'profile' | 'token'

const readers: Record<NameKind, (db: Db, cur: string) => string[]> = {
  server: (db) => serverNames(db),
  tool: (db, cur) => suggestToolIds(db, cur, 500),
  call: (db) => listCalls(db, 'pending').map((c) => c.id),
  setting: (db) => Object.keys(presentSettings(readSettings(db))),
  profile: (db) => profileList(db).map((p) => p.name),
  token: (db) => tokens(db).map((t) => t.name),
}

/** Names from the database, read-only; none when it does not exist yet (completion never creates it). */
export function namesOf(kind: NameKind, cur: string, dbFile: string | undefined): string[] {
  const db = openReadOnly(dbFile)
  if (!db) return []
  try {
    return readers[kind](db, cur)
  } catch {
    return [] // a database from another version, locked, unreadable: no candidates rather than noise
  } finally {
    closeStore(db)
  }
}
