import { readFileSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import pkg from '@/package.json'
import { runCli } from '@/tests/helpers/cli'
import { freshDb, tempDbFile } from '@/tests/helpers/db'
import { json } from './helpers'

const root = path.resolve(import.meta.dirname, '..', '..')
const installed = (name: string) => JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version
const journal = JSON.parse(readFileSync(path.join(root, 'db', 'migrations', 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] }
const latest = journal.entries.at(-1)!.tag

describe('toolgate version', () => {
  it('-o json names Node.js, SQLite, Next.js, the MCP SDKs and the schema version of a migrated database', async () => {
    const { db, file } = freshDb()
    const sqlite = db.$client.prepare('select sqlite_version()').pluck().get()
    db.$client.close()
    const r = await runCli(['version', '-o', 'json', '--db', file])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r)).toEqual({
      toolgate: pkg.version, node: process.versions.node, sqlite, better_sqlite3: installed('better-sqlite3'), next: installed('next'),
      mcp_sdk: { client: installed('@modelcontextprotocol/client'), server: installed('@modelcontextprotocol/server') },
      schema_version: latest, schema_latest: latest,
    })
  })

  it('reports what the database has, without migrating or creating it', async () => {
    const file = tempDbFile()
    const none = json(await runCli(['version', '-o', 'json', '--db', file]))
    expect(none.schema_version).toBeNull()
    // an older database: the newest migration's record removed, as if it had not run yet
    const { db, file: old } = freshDb()
    db.$client.exec('delete from __drizzle_migrations where created_at = (select max(created_at) from __drizzle_migrations)')
    db.$client.close()
    const r = json(await runCli(['version', '-o', 'json', '--db', old]))
    expect(r.schema_version).toBe(journal.entries.at(-2)!.tag)
    expect(new Database(old, { readonly: true }).prepare('select count(*) from __drizzle_migrations').pluck().get()).toBe(journal.entries.length - 1)
    const table = await runCli(['version', '--db', old])
    expect(table.stdout).toContain(`(this toolgate migrates to ${latest})`)
  })
})
