import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import Database from 'better-sqlite3'
import pkg from '@/package.json'
import type { Db } from '@/db/client'
import { managedServers } from '@/db/queries/servers'
import { operatorKeyHash } from '@/db/queries/auth'
import { activityStorage } from '@/lib/activity/retention'
import { cliDbFile, openCliDb } from '@/lib/cli/args'
import { paint, statusColour, table, terminal, wrap } from '@/lib/cli/output'
import { command, type Command } from '@/lib/cli/spec'
import { projectRoot } from '@/lib/paths'
import type { Transport } from '@/db/schema'
import { buildIdFile } from '@/lib/server/build'
import { addressFlags, listenAddress } from './serve'
import { schemaVersion } from './version'

type CheckStatus = 'ok' | 'warn' | 'fail'
interface Check { name: string; status: CheckStatus; detail: string; fix?: string }

const CHROMIUM = '/usr/bin/chromium'

/** Whether a version satisfies an npm-style range of the simple kind package.json uses (">=20.9 <21 || >=22"). */
function satisfies(version: string, range: string): boolean {
  const num = (v: string) => { const [a = 0, b = 0, c = 0] = v.split('.').map(Number); return a * 1e6 + b * 1e3 + c }
  const v = num(version)
  return range.split('||').some((alt) => alt.trim().split(/\s+/).every((cmp) => {
    const m = /^(>=|<=|>|<|=)?v?([\d.]+)$/.exec(cmp)
    if (!m) return false
    const w = num(m[2])
    return m[1] === '>=' ? v >= w : m[1] === '<=' ? v <= w : m[1] === '>' ? v > w : m[1] === '<' ? v < w : v === w
  }))
}

function nodeCheck(): Check {
  const range = pkg.engines.node
  return satisfies(process.versions.node, range)
    ? { name: 'node', status: 'ok', detail: `Node.js ${process.versions.node} (supported: ${range})` }
    : { name: 'node', status: 'fail', detail: `Node.js ${process.versions.node} is outside the supported range ${range}`, fix: 'install Node.js 20.9 or later in the 20 line, or 22 or later (nvm install 22)' }
}

function driverCheck(): Check {
  try {
    const mem = new Database(':memory:')
    const v = mem.prepare('select sqlite_version()').pluck().get() as string
    mem.close()
    return { name: 'better-sqlite3', status: 'ok', detail: `loads; SQLite ${v}` }
  } catch (e) {
    return { name: 'better-sqlite3', status: 'fail', detail: `does not load: ${(e as Error).message}`, fix: 'npm rebuild better-sqlite3 (compiling it needs python3, make and a C++ compiler: see README, Prerequisites)' }
  }
}

const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`

/** Open (and migrate) the database, then prove a write would go through, without keeping one. */
function databaseCheck(file: string): { check: Check; db?: Db } {
  const fixAccess = `make ${file} and its directory writable by this user (SQLite writes ${path.basename(file)}-wal and -shm beside it), or point --db / TOOLGATE_DB at the right file`
  if (!existsSync(file)) return { check: { name: 'database', status: 'warn', detail: `no database at ${file} yet`, fix: 'toolgate serve creates it on first start; if you meant another file, give --db or set TOOLGATE_DB' } }
  let db: Db
  try {
    db = openCliDb(file)
  } catch (e) {
    return { check: { name: 'database', status: 'fail', detail: `${file} does not open and migrate: ${(e as Error).message}`, fix: fixAccess } }
  }
  try {
    db.$client.exec('begin immediate; update settings set id = id where id = 1; rollback')
  } catch (e) {
    if (db.$client.inTransaction) db.$client.exec('rollback')
    return { check: { name: 'database', status: 'fail', detail: `${file} is not writable: ${(e as Error).message}`, fix: fixAccess } }
  }
  const s = activityStorage(db)
  const oldest = s.oldestAt === null ? 'no activity records' : `${s.records} activity record${s.records === 1 ? '' : 's'} since ${new Date(s.oldestAt).toISOString()}`
  return { db, check: { name: 'database', status: 'ok', detail: `${file}: opens, migrated (${schemaVersion(db).applied}), writable; ${mb(s.dbBytes)}, WAL ${mb(s.walBytes)}; ${oldest}` } }
}

function buildCheck(): Check {
  const file = buildIdFile()
  const dir = path.dirname(file)
  if (existsSync(file)) return { name: 'web app', status: 'ok', detail: `built in ${dir} (BUILD_ID ${readFileSync(file, 'utf8').trim()})` }
  return { name: 'web app', status: 'warn', detail: `not built: no BUILD_ID in ${dir}`, fix: 'toolgate serve builds it on first start (about 30 s); or build it now: npx next build' }
}

/** Free, or toolgate already answers there (its /api/v1 answers carry a req_ request id): either is fine. */
async function portCheck(port: number, host: string): Promise<Check> {
  const name = 'port'
  const where = `${host}:${port}`
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const probe = createServer()
    probe.once('error', (e) => resolve(e))
    probe.listen(port, host, () => probe.close(() => resolve(null)))
  })
  if (!error) return { name, status: 'ok', detail: `${where} is free` }
  if (error.code === 'EADDRINUSE') {
    const answer = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/api/v1/whoami`, { signal: AbortSignal.timeout(2_000) }).catch(() => null)
    if (answer?.headers.get('x-request-id')?.startsWith('req_')) return { name, status: 'ok', detail: `toolgate is already running at ${where}` }
    return { name, status: 'fail', detail: `${where} is in use by another program`, fix: `stop that program, or use another port: toolgate serve --port 8080 (check it with toolgate doctor --port 8080)` }
  }
  return { name, status: 'fail', detail: `cannot listen on ${where}: ${error.code ?? error.message}`, fix: error.code === 'EACCES' ? 'use a port above 1023: --port 8080' : 'give an address of this machine: --host 127.0.0.1' }
}

function keyCheck(db: Db | undefined): Check {
  const name = 'operator key'
  if (process.env.TOOLGATE_API_KEY) return { name, status: 'ok', detail: 'TOOLGATE_API_KEY is set (it is the key)' }
  if (!db) return { name, status: 'warn', detail: 'not checked: no database to read it from', fix: 'fix the database check first' }
  if (operatorKeyHash(db)) return { name, status: 'ok', detail: 'set (stored as a hash; printed once when it was made)' }
  return { name, status: 'warn', detail: 'no operator key yet', fix: 'toolgate serve makes one on first start and prints it once; or make one now: toolgate operator-key rotate' }
}

/** What the runtime would start: a command on PATH (or a path, from its working directory), or a URL. */
function resolveTransport(t: Transport): { ok: true; detail: string } | { ok: false; detail: string } {
  if (!('command' in t)) {
    try {
      const u = new URL(t.url)
      if (u.protocol === 'http:' || u.protocol === 'https:') return { ok: true, detail: `${u.href} parses` }
      return { ok: false, detail: `URL ${t.url} is not http(s)` }
    } catch {
      return { ok: false, detail: `URL ${t.url} does not parse` }
    }
  }
  const executable = (p: string) => { try { return statSync(p).isFile() && (accessSync(p, constants.X_OK), true) } catch { return false } }
  if (t.command.includes('/')) {
    const p = path.resolve(t.cwd ?? projectRoot(), t.command)
    return executable(p) ? { ok: true, detail: `${t.command} → ${p}` } : { ok: false, detail: `command ${p} does not exist or is not executable` }
  }
  const found = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, t.command)).find(executable)
  return found ? { ok: true, detail: `${t.command} → ${found}` } : { ok: false, detail: `command "${t.command}" is not on PATH` }
}

function upstreamChecks(db: Db | undefined): Check[] {
  if (!db) return [{ name: 'upstreams', status: 'warn', detail: 'not checked: no database to read them from', fix: 'fix the database check first' }]
  const enabled = managedServers(db).filter((s) => s.enabled)
  if (!enabled.length) return [{ name: 'upstreams', status: 'ok', detail: 'no enabled server with a transport' }]
  return enabled.map((s) => {
    const r = resolveTransport(s.transport)
    return r.ok ? { name: `upstream ${s.name}`, status: 'ok', detail: r.detail }
      : { name: `upstream ${s.name}`, status: 'fail', detail: r.detail, fix: `install it, or fix the server (toolgate upstream remove ${s.name}, then add it again), or take it out of service: toolgate upstream disable ${s.name}` }
  })
}

function chromiumCheck(): Check {
  return existsSync(CHROMIUM)
    ? { name: 'chromium', status: 'ok', detail: `${CHROMIUM} (for browser tests only)` }
    : { name: 'chromium', status: 'warn', detail: `not at ${CHROMIUM} (for browser tests only; toolgate itself does not need it)`, fix: 'only to run npm test\'s browser tests: apt-get install -y chromium' }
}

export const doctorCommand: Command = command({
  name: 'doctor',
  summary: 'check this machine\'s setup: each check ok, warn or fail, with the fix',
  details: 'Checks Node.js against package.json engines, that better-sqlite3 loads, that the database opens, migrates and is writable (with its size, WAL size and oldest record), that the web app is built, that the port is free or toolgate already answers there, the operator key, that every enabled upstream\'s command resolves (or its URL parses), and Chromium (for browser tests only). Opening the database migrates it, as serve would.',
  args: [],
  flags: addressFlags,
  examples: [['toolgate doctor', 'is this machine ready to run toolgate?'], ['toolgate doctor --port 8080 --db /srv/toolgate.db', 'for a server started that way'], ['toolgate doctor -o json | jq \'.checks[] | select(.status != "ok")\'', 'only what needs you']],
  exits: { 0: 'no check failed (warnings allowed)', 1: 'a check failed, or bad flags' },
  run: async ({ values, json }) => {
    const { port, host } = listenAddress(values)
    const { check: dbCheck, db } = databaseCheck(path.resolve(cliDbFile(values.db)))
    const checks: Check[] = [nodeCheck(), driverCheck(), dbCheck, buildCheck(), await portCheck(port, host), keyCheck(db), ...upstreamChecks(db), chromiumCheck()]
    db?.$client.close()
    const ok = !checks.some((c) => c.status === 'fail')
    if (json) console.log(JSON.stringify({ ok, checks }, null, 2))
    else {
      const look = terminal()
      const fixes = checks.filter((c) => c.fix).map((c) => `  ${c.name}\n    ${wrap(c.fix!, look.width, 4)}`)
      console.log([
        table(['CHECK', 'STATUS', 'DETAIL'], checks.map((c) => [c.name, c.status, c.detail]), look, (col, cell) => (col === 1 ? statusColour(cell) : undefined)),
        ...(fixes.length ? ['', 'Fix:', ...fixes] : []),
        '', ok ? paint(look, 'green', 'No check failed.') : paint(look, 'red', 'A check failed: fix it, then run toolgate doctor again.'),
      ].join('\n'))
    }
    return ok ? 0 : 1
  },
})
