import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
// a port of this worker's slice, below the ephemeral range: nothing else can take it before postgres binds it
import { freePort } from './server'

/**
 * A real PostgreSQL server for a test file: TOOLGATE_TEST_DATABASE_URL when it names one, else a
 * private cluster of Debian's postgresql package — initdb in a temporary folder, listening on a
 * free port of 127.0.0.1 and a unix socket in that folder, stopped (by its own PID) and removed
 * by stop(). Each test takes a database of its own from it (database()).
 */
export interface TestPostgres {
  /** a new, empty database on the server: its URL (with a password, which trust auth ignores, so masking shows) */
  database(): Promise<string>
  /** the server's superuser connection URL (its maintenance database) */
  adminUrl: string
  /** the private cluster's folder (data and socket); null on TOOLGATE_TEST_DATABASE_URL */
  folder: string | null
  /** the private cluster's postmaster; null on TOOLGATE_TEST_DATABASE_URL */
  pid: number | null
  stop(): Promise<void>
}

const PASSWORD = 'pg-test-secret'

/** The newest /usr/lib/postgresql/<version>/bin that has initdb, or a clear failure. */
function postgresBin(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : []
  if (!versions.length) {
    throw new Error(`PostgreSQL is not installed: no ${root}/*/bin/initdb. Install Debian's package (apt-get install -y postgresql; .ci/run does), or set TOOLGATE_TEST_DATABASE_URL to a server the tests may create databases on`)
  }
  return path.join(root, versions[0], 'bin')
}

/**
 * Who the cluster runs as: initdb and postgres refuse root, so as root they run as the postgres
 * user the Debian package makes; otherwise as this user.
 */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'))
  if (!line) throw new Error('running as root, and there is no postgres user to run the test cluster as (initdb refuses root): install Debian\'s postgresql package, which makes it')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** Poll until `url` takes a connection, or the server process has died (with its output). */
async function untilAccepting(url: string, child: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the test PostgreSQL exited (${child.exitCode ?? child.signalCode}) before it took connections:\n${output()}`)
    const c = new pg.Client({ connectionString: url })
    try {
      await c.connect()
      await c.end()
      return
    } catch (e) {
      await c.end().catch(() => {})
      if (Date.now() > deadline) throw new Error(`the test PostgreSQL took no connection within ${timeoutMs} ms: ${(e as Error).message}\n${output()}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

const withPassword = (url: string) => {
  const u = new URL(url)
  if (!u.password) u.password = PASSWORD
  return u
}

/** Databases made on a server, dropped at the end. */
function databasesOn(adminUrl: string): { database: () => Promise<string>; dropAll: () => Promise<void> } {
  const made: string[] = []
  return {
    database: async () => {
      const name = `toolgate_test_${randomBytes(6).toString('hex')}`
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      try {
        await c.query(`create database "${name}"`)
      } finally {
        await c.end()
      }
      made.push(name)
      const u = withPassword(adminUrl)
      u.pathname = `/${name}`
      return u.href
    },
    dropAll: async () => {
      if (!made.length) return
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      try {
        for (const name of made.splice(0)) await c.query(`drop database if exists "${name}" with (force)`)
      } finally {
        await c.end()
      }
    },
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const given = process.env.TOOLGATE_TEST_DATABASE_URL
  if (given) {
    const dbs = databasesOn(given)
    return { adminUrl: given, folder: null, pid: null, database: dbs.database, stop: dbs.dropAll }
  }
  const bin = postgresBin()
  const user = clusterUser()
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-pg-'))
  const data = path.join(dir, 'data')
  if (user) chownSync(dir, user.uid, user.gid)
  const as = user ? { uid: user.uid, gid: user.gid } : {}
  const init = spawnSync(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'toolgate', '-E', 'UTF8', '--locale=C', '--no-sync'], { ...as, encoding: 'utf8', cwd: dir })
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`initdb failed (${init.status ?? init.error?.message}):\n${init.stdout}${init.stderr}`)
  }
  const port = await freePort()
  let output = ''
  const child = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'], { ...as, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid!, 'SIGINT') // fast shutdown: ends the sessions, then the postmaster and its children
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  const adminUrl = `postgres://toolgate@127.0.0.1:${port}/postgres`
  try {
    await untilAccepting(adminUrl, child, () => output)
  } catch (e) {
    await stop()
    throw e
  }
  const dbs = databasesOn(adminUrl)
  return {
    adminUrl,
    folder: dir,
    pid: child.pid!,
    database: dbs.database,
    stop: async () => {
      await dbs.dropAll().catch(() => {}) // the cluster goes with them
      await stop()
    },
  }
}
