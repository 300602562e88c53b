import { readFileSync } from 'node:fs'
import path from 'node:path'
import pkg from '@/package.json'
import { engineVersion } from '@/db/engine'
import { schemaVersion } from '@/db/queries/schema-version'
import { table, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import { projectRoot } from '@/lib/core/paths'

/** An installed package's version, as node_modules holds it (null when it is not installed). */
function installedVersion(name: string): string | null {
  try {
    return (JSON.parse(readFileSync(path.join(projectRoot(), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
  } catch {
    return null
  }
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
    const [{ openReadOnly }, { closeStore }] = await Promise.all([import('@/lib/cli/db'), import('@/db/client')])
    const db = openReadOnly(values.db)
    const schema = schemaVersion(db)
    if (db) closeStore(db)
    const v = {
      toolgate: pkg.version, node: process.versions.node, sqlite: await engineVersion(), better_sqlite3: installedVersion('better-sqlite3'), next: installedVersion('next'),
      mcp_sdk: { client: installedVersion('@modelcontextprotocol/client'), server: installedVersion('@modelcontextprotocol/server') },
      schema_version: schema.applied, schema_latest: schema.latest,
    }
    if (json) console.log(toJson(v))
    else console.log(table(['COMPONENT', 'VERSION'], [
      ['toolgate', v.toolgate], ['node', v.node], ['sqlite', v.sqlite], ['better-sqlite3', v.better_sqlite3 ?? '-'], ['next', v.next ?? '-'],
      ['@modelcontextprotocol/client', v.mcp_sdk.client ?? '-'], ['@modelcontextprotocol/server', v.mcp_sdk.server ?? '-'],
      ['database schema', `${v.schema_version ?? '(no database)'}${v.schema_version && v.schema_version !== v.schema_latest ? ` (this toolgate migrates to ${v.schema_latest})` : ''}`],
    ]))
    return 0
  },
})
