import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { is } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import * as sqliteSchema from '@/db/schema'
import { connectPg, migratePg, type PgDb } from '@/db/pg/client'
import { freshDb } from '@/tests/helpers/db'
import { startPostgres, type TestPostgres } from '@/tests/helpers/postgres'

// Both dialects' schemas, each read from a database its own migrations made, described alike:
// the same tables, columns (name, kind, nullability), primary and unique keys, indexes and
// foreign keys. A column added to one schema and not the other fails here.

interface Shape {
  columns: Record<string, { kind: string; nullable: boolean }>
  primaryKey: string[]
  /** unique keys (a UNIQUE constraint, or a unique index: drizzle makes .unique() one on SQLite, the other on PostgreSQL), by their columns */
  unique: string[][]
  /** the other indexes, by name */
  indexes: Record<string, string[]>
  foreignKeys: string[]
}

/** A SQLite column's kind as the PostgreSQL schema must store it (SQLite keeps booleans as integers and JSON as text). */
const PG_KIND: Record<string, string> = { INTEGER: 'bigint', TEXT: 'text', REAL: 'double precision', boolean: 'boolean', json: 'json' }
const PG_DELETE: Record<string, string> = { a: 'NO ACTION', c: 'CASCADE', n: 'SET NULL', r: 'RESTRICT', d: 'SET DEFAULT' }

/** What drizzle's SQLite schema says a column holds, where SQLite's own type cannot tell. */
function sqliteModes(): Map<string, string> {
  const modes = new Map<string, string>()
  for (const t of Object.values(sqliteSchema) as unknown[]) {
    if (!is(t, SQLiteTable)) continue
    const { name, columns } = getTableConfig(t)
    for (const c of columns) {
      if (c.columnType === 'SQLiteBoolean') modes.set(`${name}.${c.name}`, 'boolean')
      if (c.columnType === 'SQLiteTextJson') modes.set(`${name}.${c.name}`, 'json')
    }
  }
  return modes
}

function sqliteShapes(): Record<string, Shape> {
  const { db } = freshDb()
  const q = <T>(sql: string) => db.$client.prepare(sql).all() as T[]
  const modes = sqliteModes()
  const shapes: Record<string, Shape> = {}
  const tables = q<{ name: string }>(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name <> '__drizzle_migrations' order by name`)
  for (const { name } of tables) {
    const cols = q<{ name: string; type: string; notnull: number; pk: number }>(`pragma table_info("${name}")`)
    const indexes = q<{ name: string; unique: number; origin: string }>(`pragma index_list("${name}")`)
    const columnsOf = (index: string) => q<{ seqno: number; name: string }>(`pragma index_info("${index}")`).sort((a, b) => a.seqno - b.seqno).map((c) => c.name)
    const fks = q<{ id: number; seq: number; table: string; from: string; to: string; on_delete: string }>(`pragma foreign_key_list("${name}")`)
    shapes[name] = {
      columns: Object.fromEntries(cols.map((c) => [c.name, { kind: PG_KIND[modes.get(`${name}.${c.name}`) ?? c.type], nullable: c.notnull === 0 && c.pk === 0 }])),
      primaryKey: cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      unique: indexes.filter((i) => i.origin !== 'pk' && i.unique === 1).map((i) => columnsOf(i.name)).sort(),
      indexes: Object.fromEntries(indexes.filter((i) => i.origin === 'c' && i.unique === 0).map((i) => [i.name, columnsOf(i.name)])),
      foreignKeys: [...new Set(fks.map((f) => f.id))].map((id) => {
        const parts = fks.filter((f) => f.id === id).sort((a, b) => a.seq - b.seq)
        return `(${parts.map((p) => p.from).join(',')}) → ${parts[0].table}(${parts.map((p) => p.to).join(',')}) on delete ${parts[0].on_delete}`
      }).sort(),
    }
  }
  db.$client.close()
  return shapes
}

async function pgShapes(db: PgDb): Promise<Record<string, Shape>> {
  const q = async <T>(sql: string) => (await db.$client.query(sql)).rows as T[]
  const shapes: Record<string, Shape> = {}
  const columns = await q<{ table: string; column: string; type: string; nullable: string }>(`select table_name as "table", column_name as "column", data_type as type, is_nullable as nullable
    from information_schema.columns where table_schema = current_schema() order by table_name, ordinal_position`)
  for (const c of columns) {
    shapes[c.table] ??= { columns: {}, primaryKey: [], unique: [], indexes: {}, foreignKeys: [] }
    shapes[c.table].columns[c.column] = { kind: c.type, nullable: c.nullable === 'YES' }
  }
  const keys = await q<{ table: string; kind: string; columns: string[] }>(`select tc.table_name as "table", tc.constraint_type as kind,
      array_agg(k.column_name::text order by k.ordinal_position) as columns
    from information_schema.table_constraints tc join information_schema.key_column_usage k using (constraint_schema, constraint_name)
    where tc.table_schema = current_schema() and tc.constraint_type in ('PRIMARY KEY', 'UNIQUE') group by 1, 2, tc.constraint_name`)
  for (const k of keys) {
    if (k.kind === 'PRIMARY KEY') shapes[k.table].primaryKey = k.columns
    else shapes[k.table].unique.push(k.columns)
  }
  // indexes of their own (pg_indexes), not those behind a key constraint
  const indexes = await q<{ table: string; name: string; unique: boolean; columns: string[] }>(`select pi.tablename as "table", pi.indexname as name, ix.indisunique as unique,
      array(select a.attname::text from unnest(ix.indkey) with ordinality k(attnum, ord) join pg_attribute a on a.attrelid = ix.indrelid and a.attnum = k.attnum order by k.ord) as columns
    from pg_indexes pi join pg_class i on i.relname = pi.indexname and i.relnamespace = (select oid from pg_namespace where nspname = pi.schemaname)
    join pg_index ix on ix.indexrelid = i.oid
    where pi.schemaname = current_schema() and not exists (select 1 from pg_constraint c where c.conindid = ix.indexrelid)`)
  for (const i of indexes) {
    if (i.unique) shapes[i.table].unique.push(i.columns)
    else shapes[i.table].indexes[i.name] = i.columns
  }
  for (const s of Object.values(shapes)) s.unique.sort()
  const fks = await q<{ table: string; to: string; from_cols: string[]; to_cols: string[]; on_delete: string }>(`select t.relname as "table", f.relname as "to",
      array(select a.attname::text from unnest(c.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.o) as from_cols,
      array(select a.attname::text from unnest(c.confkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.o) as to_cols,
      c.confdeltype as on_delete
    from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class f on f.oid = c.confrelid
    where c.contype = 'f' and t.relnamespace = (select oid from pg_namespace where nspname = current_schema())`)
  for (const f of fks) shapes[f.table].foreignKeys.push(`(${f.from_cols.join(',')}) → ${f.to}(${f.to_cols.join(',')}) on delete ${PG_DELETE[f.on_delete]}`)
  for (const s of Object.values(shapes)) s.foreignKeys.sort()
  return shapes
}

let server: TestPostgres
let pg: PgDb
beforeAll(async () => {
  server = await startPostgres()
  pg = await connectPg(await server.database())
  await migratePg(pg)
})
afterAll(async () => {
  await pg?.$client.end()
  await server?.stop()
})

test('the SQLite and PostgreSQL schemas have the same tables, columns, keys and indexes', async () => {
  const sqlite = sqliteShapes()
  const postgres = await pgShapes(pg)
  expect(Object.keys(sqlite).length).toBeGreaterThan(20)
  expect(Object.keys(postgres).sort()).toEqual(Object.keys(sqlite).sort())
  for (const name of Object.keys(sqlite)) expect({ table: name, ...postgres[name] }).toEqual({ table: name, ...sqlite[name] })
})

test('migrating an already migrated PostgreSQL database changes nothing', async () => {
  const before = await pgShapes(pg)
  await migratePg(pg)
  expect(await pgShapes(pg)).toEqual(before)
})
