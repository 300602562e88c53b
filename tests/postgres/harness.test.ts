import { existsSync } from 'node:fs'
import pg from 'pg'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startPostgres, type TestPostgres } from '@/tests/helpers/postgres'

let server: TestPostgres
beforeAll(async () => { server = await startPostgres() })
afterAll(async () => { await server?.stop() })

test('a test database is a real, empty PostgreSQL 15+ database of its own', async () => {
  const [a, b] = [await server.database(), await server.database()]
  expect(a).not.toBe(b)
  const c = new pg.Client({ connectionString: a })
  await c.connect()
  try {
    const { rows: [v] } = await c.query<{ n: string }>(`select current_setting('server_version_num') as n`)
    expect(Number(v.n)).toBeGreaterThanOrEqual(150000)
    const { rows: [t] } = await c.query<{ n: number }>(`select count(*)::int as n from information_schema.tables where table_schema = 'public'`)
    expect(t.n).toBe(0)
    await c.query('create table t (x int)')
  } finally {
    await c.end()
  }
  // the other database does not see it
  const d = new pg.Client({ connectionString: b })
  await d.connect()
  try {
    const { rows } = await d.query(`select 1 from information_schema.tables where table_name = 't'`)
    expect(rows).toHaveLength(0)
  } finally {
    await d.end()
  }
})

test('stop() leaves nothing behind: the private cluster stopped and removed, or (on TOOLGATE_TEST_DATABASE_URL) its databases dropped', async () => {
  const own = await startPostgres()
  const made = new URL(await own.database()).pathname.slice(1)
  if (own.pid === null) {
    await own.stop()
    const c = new pg.Client({ connectionString: own.adminUrl })
    await c.connect()
    try {
      const { rows } = await c.query('select 1 from pg_database where datname = $1', [made])
      expect(rows).toHaveLength(0)
    } finally {
      await c.end()
    }
    return
  }
  expect(existsSync(`/proc/${own.pid}`)).toBe(true)
  await own.stop()
  expect(existsSync(`/proc/${own.pid}`)).toBe(false)
  expect(existsSync(own.folder!)).toBe(false)
  const c = new pg.Client({ connectionString: own.adminUrl, connectionTimeoutMillis: 2000 })
  await expect(c.connect()).rejects.toThrow()
})
