import 'server-only'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { DbLike } from '@/db/client'
import { projectRoot } from '@/lib/core/paths'

interface Journal { entries: { tag: string; when: number }[] }
const journal = (): Journal => JSON.parse(readFileSync(path.join(projectRoot(), 'db', 'migrations', 'meta', '_journal.json'), 'utf8'))

/**
 * The database's schema version: the newest migration applied to it (drizzle records each by
 * the journal's timestamp), beside the newest this toolgate ships. Null when nothing is applied.
 */
export function schemaVersion(db: DbLike | null): { applied: string | null; latest: string } {
  const entries = journal().entries
  const latest = entries[entries.length - 1].tag
  if (!db) return { applied: null, latest }
  const one = <T>(q: string) => db.$client.prepare(q).pluck().get() as T
  const hasTable = one<number>(`select count(*) from sqlite_master where name = '__drizzle_migrations'`) > 0
  const when = hasTable ? one<number | null>('select max(created_at) from __drizzle_migrations') : null
  return { applied: entries.find((e) => e.when === when)?.tag ?? (when === null ? null : `unknown (${when})`), latest }
}
