import 'server-only'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { DbLike } from '@/db/client'
import type { PgDb } from '@/db/pg/client'
import { projectRoot } from '@/lib/core/paths'

interface Journal { entries: { tag: string; when: number }[] }
const journal = (dir = path.join('db', 'migrations')): Journal => JSON.parse(readFileSync(path.join(projectRoot(), dir, 'meta', '_journal.json'), 'utf8'))

/** The journal's tag of the migration drizzle recorded at `when`. */
const tagOf = (entries: Journal['entries'], when: number | null) => entries.find((e) => e.when === when)?.tag ?? (when === null ? null : `unknown (${when})`)

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
  return { applied: tagOf(entries, when), latest }
}

/**
 * The same for a PostgreSQL database (drizzle's pg migrator records in drizzle.__drizzle_migrations),
 * with how many of the shipped migrations it lacks.
 */
export async function pgSchemaVersion(db: PgDb): Promise<{ applied: string | null; latest: string; missing: number }> {
  const entries = journal(path.join('db', 'pg', 'migrations')).entries
  const latest = entries[entries.length - 1].tag
  const { rows: [{ present }] } = await db.$client.query<{ present: boolean }>(`select to_regclass('drizzle.__drizzle_migrations') is not null as present`)
  const when = present ? (await db.$client.query<{ at: number | null }>('select max(created_at) as at from drizzle.__drizzle_migrations')).rows[0].at : null
  const applied = tagOf(entries, when === null ? null : Number(when))
  return { applied, latest, missing: entries.filter((e) => when === null || e.when > Number(when)).length }
}

/** The PostgreSQL server's version, as it names it and as a number (150004 = 15.4). */
export async function pgServerVersion(db: PgDb): Promise<{ version: string; num: number }> {
  const { rows: [r] } = await db.$client.query<{ version: string; num: string }>(`select current_setting('server_version') as version, current_setting('server_version_num') as num`)
  return { version: r.version, num: Number(r.num) }
}
