import 'server-only'
import path from 'node:path'
import pg from 'pg'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import { describeError, unavailableError } from '@/lib/core/errors'
import { projectRoot } from '@/lib/core/paths'
import * as schema from './schema'
import { maskIn, maskUrl } from './url'

export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Client }

/** Every statement is bounded: a server that stops answering fails the command instead of hanging it. */
export const STATEMENT_TIMEOUT_MS = 60_000
const CONNECT_TIMEOUT_MS = 10_000

// bigint columns hold epoch ms, ids and counts, all far below 2^53: numbers, as SQLite gives them
const INT8 = 20
const types = { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8 ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser }

/** Why connecting failed, in words (an AggregateError of refused addresses has no message of its own). */
function whyNot(e: unknown): string {
  if (e instanceof AggregateError && !e.message) return e.errors.map(describeError).join('; ')
  const code = (e as NodeJS.ErrnoException).code
  return describeError(e) || code || 'no reason given'
}

/** One connection to the PostgreSQL database at `url`; a failure names the URL with its password masked. */
export async function connectPg(url: string): Promise<PgDb> {
  const client = new pg.Client({ connectionString: url, types, statement_timeout: STATEMENT_TIMEOUT_MS, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'toolgate' })
  try {
    await client.connect()
  } catch (e) {
    await client.end().catch(() => {})
    throw unavailableError(`PostgreSQL at ${maskUrl(url)} does not answer: ${maskIn(whyNot(e), url)}`)
  }
  // a connection the server drops fails the next query (with its reason) instead of crashing the process
  client.on('error', () => {})
  return drizzle({ client, schema }) as PgDb
}

/** Close a PostgreSQL connection opened by connectPg. */
export const closePg = (db: PgDb): Promise<void> => db.$client.end()

export const pgMigrationsFolder = () => path.join(projectRoot(), 'db', 'pg', 'migrations')

/** Apply the PostgreSQL migrations toolgate ships that the database lacks (each in its transaction). */
export async function migratePg(db: PgDb): Promise<void> {
  await migrate(db, { migrationsFolder: pgMigrationsFolder() })
}
