import { hostname } from 'node:os'
import { is } from 'drizzle-orm'
import { getTableConfig as pgConfig, type PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import * as s from '@/db/schema'
import { connectPg, type PgDb } from '@/db/pg/client'
import { indexActivityServers } from '@/db/queries/activity-index'
import { insertActivity } from '@/lib/activity/record'
import { copyOrder, verifyPgChain } from '@/db/queries/pg-copy'
import { chainLinks } from '@/db/queries/activity'
import { addOperator, inviteOperator, requireOperator } from '@/lib/admin/operators'
import { issueSession } from '@/lib/auth/operator-sessions'
import { verifyChain } from '@/lib/core/activity-chain'
import { openDb } from '@/lib/server/database'
import { runCli } from '@/tests/helpers/cli'
import { demoDbFile } from '@/tests/cli/helpers'
import { startPostgres, type TestPostgres } from '@/tests/helpers/postgres'
import { reasonVerdicts } from '@/lib/preflight/taxonomy'

const PASSWORD = 'pg-test-secret' // the harness puts it in every database URL (trust auth ignores it)
const ctx = { actor: 'cli:test', requestId: 'req_copy_fixture' }

/**
 * The demo state, some activity made the ways toolgate makes it (a check, operators, a secret),
 * its derived indexes filled, and a row in every other table: a database with every kind of record.
 */
async function everyKindOfRecord(): Promise<string> {
  const file = await demoDbFile()
  const check = await runCli(['tools', 'preflight', 'notebook:list_notes', 'notebook:add_note', '--db', file])
  expect([0, 10, 11, 12], check.stderr).toContain(check.code) // a verdict, whatever it is; recorded either way
  const secret = await runCli(['upstream', 'set-secret', 'notebook', 'NOTEBOOK_TOKEN', '--db', file], {}, 'the-secret-value')
  expect(secret.code, secret.stderr).toBe(0)
  const db = openDb(file)
  const now = Date.now()
  await addOperator(db, { username: 'alice', name: 'Alice', email: 'alice@example.com', role: 'admin', password: 'correct horse battery' }, ctx)
  const operator = requireOperator(db, 'alice')
  await inviteOperator(db, { username: 'bob', name: 'Bob', email: null, role: 'auditor' }, ctx)
  await issueSession(db, operator, 'password', { userAgent: 'test', address: '127.0.0.1' })
  // a tool call in its two parts, as the runtime records one (counted per minute by the indexer)
  const call = insertActivity(db, { requestId: 'req_call', type: 'tool.call', surface: 'mcp-shape-a', actor: 'token:demo', tier: 'agent', server: 'notebook', data: { target: 'notebook:add_note', arguments_hash: '0'.repeat(64) } })
  insertActivity(db, { requestId: 'req_call', type: 'tool.call_outcome', surface: 'mcp-shape-a', actor: 'token:demo', tier: 'agent', server: 'notebook', data: { target: 'notebook:add_note', call: call.id, outcome: 'ok', duration_ms: 4 } })
  while (await indexActivityServers(db, reasonVerdicts)) { /* until every record is indexed */ }
  const server = 'notebook'
  db.insert(s.serverLogs).values([{ serverName: server, at: now, stream: 'stderr', line: 'started' }, { serverName: server, at: now + 1, stream: 'event', line: 'connected' }]).run()
  db.insert(s.serverOauth).values({ serverName: server, grant: 'client_credentials', preRegistered: true, discovery: { issuer: 'https://as.example.com' }, updatedAt: now }).run()
  // a lease long expired, of a process long gone: a stopped toolgate's database
  db.insert(s.runtimeLease).values({ id: 1, instance: 'rt_old', pid: 2 ** 22 + 1, host: hostname(), startedAt: now - 9e6, heartbeatAt: now - 8e6, expiresAt: now - 8e6, url: 'http://127.0.0.1:3000' }).run()
  db.insert(s.callApprovals).values({
    id: 'ca_1', serverName: server, toolName: 'add_note', arguments: '{"text":"hi"}', argumentsHash: 'h', caller: 'token:demo', callerId: 'tok_1',
    requestId: 'req_ca', status: 'done', result: { content: [{ type: 'text', text: 'ok' }] }, pin: 'p', approvedPin: 'p', createdAt: now, expiresAt: now + 60_000,
  }).run()
  db.insert(s.serverDefinitions).values({ serverName: server, kind: 'prompt', key: 'greet', definition: { name: 'greet', description: 'say hi' }, hash: 'dh', status: 'approved', approved: { name: 'greet' }, approvedHash: 'dh', firstSeen: now, lastSeen: now }).run()
  db.insert(s.pendingApprovals).values({ kind: 'tool', target: 'notebook:add_note', subject: 'pin', operatorId: operator.id, actor: 'operator:alice', at: now }).run()
  db.insert(s.personalTokens).values({ id: 'pt_1', operatorId: operator.id, name: 'ci', tokenHash: 'pth', role: 'viewer', createdAt: now, expiresAt: now + 86_400_000, uses: 3 }).run()
  db.insert(s.triageAcks).values({ key: 'agent:nightly:server_not_in_scope', fingerprint: 'fp', until: now + 3_600_000, actor: 'operator:alice', at: now }).run()
  db.insert(s.upstreamSessions).values({ serverName: server, tokenId: 'tok_1', state: 'error', detail: 'boom', action: 'restart', runtimeInstance: 'rt_old', updatedAt: now }).run()
  db.update(s.settings).set({ maxDescriptionOverlap: 0.75, twoPersonRule: 'destructive' }).run()
  db.$client.close()
  return file
}

const sqliteTables = new Map((Object.values(s) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable)).map((t) => [sqliteConfig(t).name, t]))
const sorted = (rows: object[]) => rows.map((r) => JSON.stringify(r)).sort()

let server: TestPostgres
let file: string
beforeAll(async () => {
  server = await startPostgres()
  file = await everyKindOfRecord()
})
afterAll(async () => { await server?.stop() })

describe('toolgate db copy', () => {
  let url: string
  let target: PgDb
  let copy: Awaited<ReturnType<typeof runCli>>
  beforeAll(async () => {
    url = await server.database()
    copy = await runCli(['db', 'copy', '--db', file, '--to', url, '-o', 'json'])
    target = await connectPg(url)
  })
  afterAll(async () => { await target?.$client.end() })

  test('copies every table: the counts it reports are the source\'s, each table has rows, and no message shows the password', () => {
    expect(copy.code, copy.stderr).toBe(0)
    const out = JSON.parse(copy.stdout) as { to: string; tables: { table: string; rows: number }[]; chain: { ok: boolean; records: number } }
    const source = openDb(file)
    try {
      for (const t of out.tables) expect({ table: t.table, rows: t.rows }).toEqual({ table: t.table, rows: source.$client.prepare(`select count(*) from "${t.table}"`).pluck().get() })
      expect(out.tables.map((t) => t.table).sort()).toEqual([...sqliteTables.keys()].sort())
      expect(out.tables.filter((t) => t.rows === 0)).toEqual([])
      expect(out.chain.ok).toBe(true)
      expect(out.chain.records).toBe(source.$client.prepare('select count(*) from activity').pluck().get())
    } finally {
      source.$client.close()
    }
    expect(out.to).toContain('***')
    // progress on stderr, a line per table (not a terminal)
    for (const t of out.tables) expect(copy.stderr).toContain(`copied ${t.table}: ${t.rows} row`)
    expect(copy.stdout + copy.stderr).not.toContain(PASSWORD)
  })

  test('reading back gives the same rows, table by table, as the SQLite file', async () => {
    const source = openDb(file)
    try {
      for (const table of copyOrder()) {
        const name = pgConfig(table).name
        const back = await target.select().from(table as PgTable)
        const original = source.select().from(sqliteTables.get(name)!).all()
        expect({ name, rows: sorted(back) }).toEqual({ name, rows: sorted(original) })
      }
    } finally {
      source.$client.close()
    }
  })

  test('the activity chain verifies on PostgreSQL, ending at the source\'s head', async () => {
    const source = openDb(file)
    const there = verifyChain(chainLinks(source))
    source.$client.close()
    const here = await verifyPgChain(target, 2) // small batches: the walk crosses batch ends
    expect(here).toEqual(there)
    expect(here.ok && here.head).toBeTruthy()
  })

  test('new records go on after the copied ids (identity sequences continue)', async () => {
    const { rows: [max] } = await target.$client.query<{ id: number }>('select max(id) as id from activity')
    const { rows: [next] } = await target.$client.query<{ id: number }>(`insert into activity (request_id, at, type, actor, data) values ('r', 1, 'test', 'test', '{}') returning id`)
    expect(next.id).toBe(max.id + 1)
    await target.$client.query('delete from activity where id = $1', [next.id])
  })

  test('a second copy into the same database is refused: it is not empty, and nothing changes', async () => {
    const before = (await target.$client.query<{ n: number }>('select count(*)::int as n from activity')).rows[0].n
    const again = await runCli(['db', 'copy', '--db', file, '--to', url])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/the target database is not empty: toolgate's tables already hold rows \(.*activity.*\)/)
    expect(again.stdout + again.stderr).not.toContain(PASSWORD)
    expect((await target.$client.query<{ n: number }>('select count(*)::int as n from activity')).rows[0].n).toBe(before)
  })
})

test('a database with tables of its own is refused before anything is written', async () => {
  const url = await server.database()
  const other = await connectPg(url)
  try {
    await other.$client.query('create table invoices (id int)')
    const r = await runCli(['db', 'copy', '--db', file, '--to', url])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('it has tables toolgate does not own (invoices)')
    const { rows } = await other.$client.query(`select table_name from information_schema.tables where table_schema = 'public'`)
    expect(rows).toEqual([{ table_name: 'invoices' }])
  } finally {
    await other.$client.end()
  }
})

test('the database of a running toolgate is refused (its lease is live), before the target is touched', async () => {
  const running = await demoDbFile()
  const db = openDb(running)
  const now = Date.now()
  // this test process stands in for the running toolgate: alive, on this host, its lease fresh
  db.insert(s.runtimeLease).values({ id: 1, instance: 'rt_live', pid: process.pid, host: hostname(), startedAt: now, heartbeatAt: now, expiresAt: now + 600_000, url: 'http://127.0.0.1:39999' }).run()
  db.$client.close()
  const url = await server.database()
  const r = await runCli(['db', 'copy', '--db', running, '--to', url])
  expect(r.code).toBe(1)
  expect(r.stderr).toContain(`a toolgate (pid ${process.pid}, at http://127.0.0.1:39999) is running on ${running}: stop it first`)
  const target = await connectPg(url)
  try {
    expect((await target.$client.query(`select 1 from information_schema.tables where table_schema = 'public'`)).rows).toEqual([])
  } finally {
    await target.$client.end()
  }
})

test('an unreachable target fails clearly, naming the URL with its password masked', async () => {
  const url = new URL(await server.database())
  url.port = '1' // nothing listens there
  const r = await runCli(['db', 'copy', '--db', file, '--to', url.href])
  expect(r.code).toBe(1)
  expect(r.stderr).toContain(`PostgreSQL at postgres://toolgate:***@127.0.0.1:1${url.pathname} does not answer`)
  expect(r.stderr).not.toContain(PASSWORD)
})

test('a target that is not a postgres:// URL is refused, without echoing a password', async () => {
  const r = await runCli(['db', 'copy', '--db', file, '--to', `mysql://root:${PASSWORD}@localhost/x`])
  expect(r.code).toBe(1)
  expect(r.stderr).toContain('--to is not a postgres://user:password@host:port/database URL: mysql://root:***@localhost/x')
  expect(r.stderr).not.toContain(PASSWORD)
})
