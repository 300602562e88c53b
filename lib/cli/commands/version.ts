import { readFileSync } from 'node:fs'
import path from 'node:path'
import pkg from '@/package.json'
import type { Db } from '@/db/client'
import { table, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import { projectRoot } from '@/lib/paths'

/** An installed package's version, as node_modules holds it (null when it is not installed). */
function installedVersion(name: string): string | null {
  try {
    return (JSON.parse(readFileSync(path.join(projectRoot(), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
  } catch {
    return null
  }
}

async function sqliteVersion(): Promise<string> {
  const { default: Database } = await import('better-sqlite3')
  const mem = new Database(':memory:')
  try {
    return mem.prepare('select sqlite_version()').pluck().get() as string
  } finally {
    mem.close()
  }
}

interface Journal { entries: { tag: string; when: number }[] }
const journal = (): Journal => JSON.parse(readFileSync(path.join(projectRoot(), 'db', 'migrations', 'meta', '_journal.json'), 'utf8'))

/**
 * The database's schema version: the newest migration applied to it (drizzle records each by
 * the journal's timestamp), beside the newest this toolgate ships. Null when nothing is applied.
 */
export function schemaVersion(db: Db | null): { applied: string | null; latest: string } {
  const entries = journal().entries
  const latest = entries[entries.length - 1].tag
  if (!db) return { applied: null, latest }
  const one = <T>(q: string) => db.$client.prepare(q).pluck().get() as T
  const hasTable = one<number>(`select count(*) from sqlite_master where name = '__drizzle_migrations'`) > 0
  const when = hasTable ? one<number | null>('select max(created_at) from __drizzle_migrations') : null
  return { applied: entries.find((e) => e.when === when)?.tag ?? (when === null ? null : `unknown (${when})`), latest }
}

export const versionCommand: Command = command({
  name: 'version',
  summary: 'toolgate\'s version, and Node.js, SQLite, Next.js, the MCP SDKs and the database\'s schema version',
  details: 'toolgate --version prints the first line only. The database is opened read-only and never migrated here: schema_version is what it has now.',
  args: [],
  flags: {},
  examples: [['toolgate --version', 'just the version'], ['toolgate version -o json', 'everything, for a bug report']],
  exits: { 0: 'printed', 1: EXIT_ERROR },
  run: async ({ values, json }) => {
    const { openReadOnly } = await import('@/lib/cli/db')
    const db = openReadOnly(values.db)
    const schema = schemaVersion(db)
    db?.$client.close()
    const v = {
      toolgate: pkg.version, node: process.versions.node, sqlite: await sqliteVersion(), better_sqlite3: installedVersion('better-sqlite3'), next: installedVersion('next'),
      mcp_sdk: { sdk: installedVersion('@modelcontextprotocol/sdk'), client: installedVersion('@modelcontextprotocol/client'), server: installedVersion('@modelcontextprotocol/server') },
      schema_version: schema.applied, schema_latest: schema.latest,
    }
    if (json) console.log(toJson(v))
    else console.log(table(['COMPONENT', 'VERSION'], [
      ['toolgate', v.toolgate], ['node', v.node], ['sqlite', v.sqlite], ['better-sqlite3', v.better_sqlite3 ?? '-'], ['next', v.next ?? '-'],
      ['@modelcontextprotocol/sdk', v.mcp_sdk.sdk ?? '-'], ['@modelcontextprotocol/client', v.mcp_sdk.client ?? '-'], ['@modelcontextprotocol/server', v.mcp_sdk.server ?? '-'],
      ['database schema', `${v.schema_version ?? '(no database)'}${v.schema_version && v.schema_version !== v.schema_latest ? ` (this toolgate migrates to ${v.schema_latest})` : ''}`],
    ]))
    return 0
  },
})
