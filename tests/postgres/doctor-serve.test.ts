import { afterAll, beforeAll, expect, test } from 'vitest'
import { runCli } from '@/tests/helpers/cli'
import { freshDb } from '@/tests/helpers/db'
import { startPostgres, type TestPostgres } from '@/tests/helpers/postgres'
import { readFileSync } from 'node:fs'
import path from 'node:path'

interface Check { name: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string }
const PASSWORD = 'pg-test-secret' // in every URL the harness gives

let server: TestPostgres
beforeAll(async () => { server = await startPostgres() })
afterAll(async () => { await server?.stop() })

const doctor = async (env: Record<string, string>, args: string[] = []) => {
  const r = await runCli(['doctor', '-o', 'json', ...args], env)
  expect(r.stdout + r.stderr).not.toContain(PASSWORD)
  const report = JSON.parse(r.stdout) as { ok: boolean; resolution: Record<string, string>; checks: Check[] }
  return { code: r.code, report, check: (name: string) => report.checks.find((c) => c.name === name) }
}

test('doctor on an empty database: it answers, the version is 15+, and no migration is applied (fail, with the fix)', async () => {
  const url = await server.database()
  const { code, report, check } = await doctor({ TOOLGATE_DATABASE_URL: url })
  expect(code).toBe(1)
  expect(report.resolution.database).toContain(':***@')
  expect(check('postgresql')?.status).toBe('ok')
  expect(check('server version')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^PostgreSQL 1[5-9]/) })
  expect(check('migrations')).toMatchObject({ status: 'fail', detail: expect.stringContaining('none applied'), fix: expect.stringContaining('toolgate db migrate') })
  expect(check('serve')?.status).toBe('warn')
})

test('doctor --database-url after db migrate: migrations current, no check fails', async () => {
  const url = await server.database()
  const m = await runCli(['db', 'migrate', '--database-url', url])
  expect(m.code, m.stderr).toBe(0)
  expect(m.stdout + m.stderr).not.toContain(PASSWORD)
  const { code, check } = await doctor({}, ['--database-url', url])
  // the newest migration this build ships for PostgreSQL
  const newest = (JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', '..', 'db', 'pg', 'migrations', 'meta', '_journal.json'), 'utf8')).entries as { tag: string }[]).at(-1)!.tag
  expect(check('migrations')).toMatchObject({ status: 'ok', detail: `current (${newest})` })
  expect(code).toBe(0)
})

test('doctor on an unreachable server: a failed connection check naming the URL, password masked', async () => {
  const url = new URL(await server.database())
  url.port = '1'
  const { code, check } = await doctor({ TOOLGATE_DATABASE_URL: url.href })
  expect(code).toBe(1)
  expect(check('postgresql')).toMatchObject({ status: 'fail', detail: expect.stringContaining('PostgreSQL at postgres://toolgate:***@127.0.0.1:1/') })
})

test('serve with TOOLGATE_DATABASE_URL exits 1 saying serving on PostgreSQL is not available yet, and leaves the SQLite file alone', async () => {
  const url = await server.database()
  const { file, db } = freshDb()
  db.$client.close()
  const r = await runCli(['serve', '--db', file, '--port', '0'], { TOOLGATE_DATABASE_URL: url })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain('serving on PostgreSQL is not available yet')
  expect(r.stderr).toContain('toolgate db copy')
  expect(r.stderr).not.toContain(PASSWORD)
  expect(r.stdout).not.toContain('toolgate is running')
  // any other command on the database refuses it as well, rather than reading SQLite instead
  const list = await runCli(['tools', 'list', '--db', file], { TOOLGATE_DATABASE_URL: url })
  expect(list.code).toBe(1)
  expect(list.stderr).toContain('toolgate tools list does not run on PostgreSQL yet')
})
