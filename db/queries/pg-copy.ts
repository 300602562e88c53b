import 'server-only'
import { is } from 'drizzle-orm'
import { getTableConfig, PgTable, type PgColumn } from 'drizzle-orm/pg-core'
import type { Db } from '@/db/client'
import { migratePg, type PgDb } from '@/db/pg/client'
import * as pgSchema from '@/db/pg/schema'
import { badRequest } from '@/lib/core/errors'
import { chainVerifier, verifyChain, type ChainReport, type StoredLink } from '@/lib/core/activity-chain'
import { chainLinks } from './activity'

export interface CopyProgress { table: string; copied: number; total: number }

export interface CopyReport {
  tables: { table: string; rows: number }[]
  /** the copy's activity chain as verified on PostgreSQL; null when no record is chained */
  chain: ChainReport | null
  /** set when the source's own chain already did not verify: the copy holds it as it was */
  sourceChainProblem: string | null
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

/** Every table of the PostgreSQL schema, each after the tables its foreign keys reference. */
export function copyOrder(): PgTable[] {
  const tables = (Object.values(pgSchema) as unknown[]).filter((t): t is PgTable => is(t, PgTable))
  const done = new Set<PgTable>()
  const order: PgTable[] = []
  const visit = (t: PgTable) => {
    if (done.has(t)) return
    done.add(t)
    for (const fk of getTableConfig(t).foreignKeys) {
      const to = fk.reference().foreignTable
      if (to !== t) visit(to)
    }
    order.push(t)
  }
  tables.forEach(visit)
  return order
}

/** What the target already holds: tables toolgate does not own, and toolgate's tables that have rows. */
async function targetContents(target: PgDb, ours: Set<string>): Promise<{ foreign: string[]; filled: string[] }> {
  const { rows } = await target.$client.query<{ name: string }>(`select table_name as name from information_schema.tables where table_schema = current_schema() order by 1`)
  const foreign = rows.map((r) => r.name).filter((n) => !ours.has(n))
  const filled: string[] = []
  for (const { name } of rows.filter((r) => ours.has(r.name))) {
    const { rows: [r] } = await target.$client.query<{ any: boolean }>(`select exists (select 1 from ${quote(name)}) as any`)
    if (r.any) filled.push(name)
  }
  return { foreign, filled }
}

/** A SQLite value as the PostgreSQL column takes it (SQLite keeps booleans as 0/1; JSON stays the text it is). */
const converter = (c: PgColumn) => (c.getSQLType() === 'boolean' ? (v: unknown) => (v === null ? null : v !== 0) : (v: unknown) => v)

/** Rows per INSERT: a batch is one transaction; PostgreSQL takes at most 65,535 parameters a statement. */
const BATCH_ROWS = 1_000

/**
 * Copy every row of the SQLite database `source` into `target`, an empty PostgreSQL database
 * (migrated here first): table by table, referenced tables first, one transaction per batch.
 * The source is read in one read transaction, so the copy is of one moment even if something
 * wrote meanwhile. Then every table's count is compared, identity sequences continue past the
 * copied ids, and the activity chain is verified on PostgreSQL. Refuses a target that holds
 * anything (a table of its own, or rows in toolgate's) before changing it.
 */
export async function copyToPostgres(source: Db, target: PgDb, onProgress: (p: CopyProgress) => void = () => {}, batchRows = BATCH_ROWS): Promise<CopyReport> {
  const tables = copyOrder()
  const names = new Set(tables.map((t) => getTableConfig(t).name))
  const sqlite = source.$client
  const sourceTables = (sqlite.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name <> '__drizzle_migrations'`).pluck().all() as string[])
  const unmatched = [...sourceTables.filter((n) => !names.has(n)), ...[...names].filter((n) => !sourceTables.includes(n))]
  if (unmatched.length) throw new Error(`the two schemas differ (${unmatched.join(', ')}): this toolgate cannot copy this database`)

  const { foreign, filled } = await targetContents(target, names)
  if (foreign.length || filled.length) {
    throw badRequest(`the target database is not empty: ${[
      ...(filled.length ? [`toolgate's tables already hold rows (${filled.join(', ')})`] : []),
      ...(foreign.length ? [`it has tables toolgate does not own (${foreign.join(', ')})`] : []),
    ].join('; ')}. Copy into a new, empty database (createdb …)`)
  }
  await migratePg(target)

  const sourceChain = verifyChain(chainLinks(source))
  const copied: CopyReport['tables'] = []
  sqlite.exec('begin') // one snapshot of the source for the whole copy (WAL: writers are not blocked)
  try {
    for (const table of tables) {
      const { name, columns } = getTableConfig(table)
      const convert = columns.map(converter)
      const total = sqlite.prepare(`select count(*) from ${quote(name)}`).pluck().get() as number
      const read = sqlite.prepare(`select rowid as "__rowid", ${columns.map((c) => quote(c.name)).join(', ')} from ${quote(name)} where rowid > ? order by rowid limit ?`)
      const head = `insert into ${quote(name)} (${columns.map((c) => quote(c.name)).join(', ')}) values `
      let done = 0
      let after = Number.MIN_SAFE_INTEGER
      onProgress({ table: name, copied: 0, total })
      for (;;) {
        const rows = read.all(after, batchRows) as Record<string, unknown>[]
        if (!rows.length) break
        after = rows[rows.length - 1].__rowid as number
        const params: unknown[] = []
        const tuples = rows.map((r) => `(${columns.map((c, i) => (params.push(convert[i](r[c.name])), `$${params.length}`)).join(', ')})`)
        await inTransaction(target, () => target.$client.query(head + tuples.join(', '), params))
        done += rows.length
        onProgress({ table: name, copied: done, total })
      }
      copied.push({ table: name, rows: done })
    }
  } finally {
    sqlite.exec('commit')
  }

  // ids copied as they were: identity columns go on after the highest
  const { rows: identities } = await target.$client.query<{ table: string; column: string }>(
    `select table_name as "table", column_name as "column" from information_schema.columns where table_schema = current_schema() and is_identity = 'YES'`)
  for (const { table, column } of identities) {
    await target.$client.query(`select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${quote(column)}) from ${quote(table)}), 0) + 1, false)`, [quote(table), column])
  }

  const mismatched: string[] = []
  for (const c of copied) {
    const { rows: [r] } = await target.$client.query<{ n: number }>(`select count(*)::int as n from ${quote(c.table)}`)
    if (r.n !== c.rows) mismatched.push(`${c.table}: ${c.rows} read, ${r.n} in PostgreSQL`)
  }
  if (mismatched.length) throw new Error(`the copy's row counts differ from the source's: ${mismatched.join('; ')}`)

  const chain = sourceChain.ok && !sourceChain.head ? null : await verifyPgChain(target)
  if (chain && !chain.ok && sourceChain.ok) throw new Error(`the copy's activity chain does not verify: ${chain.problem}`)
  return { tables: copied, chain, sourceChainProblem: sourceChain.ok ? null : sourceChain.problem }
}

async function inTransaction<T>(db: PgDb, fn: () => Promise<T>): Promise<T> {
  await db.$client.query('begin')
  try {
    const r = await fn()
    await db.$client.query('commit')
    return r
  } catch (e) {
    await db.$client.query('rollback').catch(() => {})
    throw e
  }
}

/** The activity chain verified as PostgreSQL holds it (data as its stored JSON text), read in batches. */
export async function verifyPgChain(db: PgDb, batch = 5_000): Promise<ChainReport> {
  const v = chainVerifier()
  for (let after = -1; ;) {
    const { rows } = await db.$client.query<StoredLink>(`select id, request_id as "requestId", at, type, surface, actor, tier, verdict, server, operator_id as "operatorId", auth,
      data::text as "dataText", prev_hash as "prevHash", hash from activity where id > $1 order by id limit $2`, [after, batch])
    if (!rows.length) return v.report()
    for (const r of rows) {
      const broken = v.add(r)
      if (broken) return broken
    }
    after = rows[rows.length - 1].id
  }
}
