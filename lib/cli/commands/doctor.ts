import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import pkg from '@/package.json'
import type { Db } from '@/db/client'
import { forTerminal, paint, statusColour, table, terminal, toJson, wrap } from '@/lib/cli/output'
import { command, type Command } from '@/lib/cli/spec'
import { projectRoot } from '@/lib/core/paths'
import { isStdio, type Transport } from '@/db/schema'
import { databaseOf, serverUrlOf, toolgateAnswersAt, urlHost, type DbSource, type UrlSource } from '@/lib/server/address'
import { buildIdFile } from '@/lib/server/build'
import { databaseUrlOf } from './db'
import { addressFlags, listenAddress } from './serve'
import { engineVersion } from '@/db/engine'
import { schemaVersion } from '@/db/queries/schema-version'
import { envVar, unknownVariables, VARIABLES } from '@/lib/core/config'
import { editDistance } from '@/lib/preflight/suggest'

// The checks' heavy parts (the database driver and its queries), loaded when doctor runs: a
// driver that does not load must become a failed check, and help must not load it at all.
let managedServers: typeof import('@/db/queries/servers').managedServers
let operatorKeyHash: typeof import('@/db/queries/auth').operatorKeyHash
let operatorKey: typeof import('@/lib/admin/operator-key')
let runtimeHolder: typeof import('@/db/queries/connections').runtimeHolder
let activityStorage: typeof import('@/lib/activity/retention').activityStorage
let openCliDb: typeof import('@/lib/cli/db').openCliDb
let proveWritable: typeof import('@/db/write').proveWritable
let closeStore: typeof import('@/db/client').closeStore
async function loadChecks(): Promise<void> {
  ;[{ managedServers }, { operatorKeyHash }, operatorKey, { runtimeHolder }, { activityStorage }, { openCliDb }, { proveWritable }, { closeStore }] = await Promise.all([
    import('@/db/queries/servers'), import('@/db/queries/auth'), import('@/lib/admin/operator-key'), import('@/db/queries/connections'), import('@/lib/activity/retention'), import('@/lib/cli/db'), import('@/db/write'), import('@/db/client'),
  ])
}

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

/** A misspelt TOOLGATE_* variable does nothing, silently: name each one set that toolgate does not read, with the one it likely meant. */
function environmentCheck(): Check {
  const unknown = unknownVariables()
  if (!unknown.length) return { name: 'environment', status: 'ok', detail: 'every TOOLGATE_* variable set is one toolgate reads' }
  const meant = (name: string) => VARIABLES.find((v) => editDistance(name, v, 3) <= 3)
  const named = unknown.map((name) => (meant(name) ? `${name} (did you mean ${meant(name)}?)` : name))
  return {
    name: 'environment', status: 'warn', detail: `toolgate reads no variable named ${named.join(', ')}`,
    fix: 'correct its name or unset it; docs/configuration.md lists every variable toolgate reads',
  }
}

async function driverCheck(): Promise<Check> {
  try {
    const v = await engineVersion()
    return { name: 'better-sqlite3', status: 'ok', detail: `loads; SQLite ${v}` }
  } catch (e) {
    return { name: 'better-sqlite3', status: 'fail', detail: `does not load: ${(e as Error).message.replace(/\s+/g, ' ')}`, fix: driverFix(e as Error) }
  }
}

/** A native module built for another Node.js says NODE_MODULE_VERSION: that is no permission problem. */
const builtForOtherNode = (e: Error) => /NODE_MODULE_VERSION/.test(e.message)

function driverFix(e: Error): string {
  const compile = '(compiling it needs python3, make and a C++ compiler: see README, Prerequisites)'
  if (!builtForOtherNode(e)) return `npm rebuild better-sqlite3 ${compile}`
  return `better-sqlite3 was built for another Node.js than this one (${process.version}): npm rebuild better-sqlite3 ${compile}. If it is still built for the other one, npm compiles against the headers of the Node.js its nodedir setting names (npm config get nodedir): rebuild against this one's, npm rebuild better-sqlite3 --nodedir="$(dirname "$(dirname "$(command -v node)")")"`
}

const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`

const SOURCES: Record<DbSource, string> = { '--db': 'from --db', TOOLGATE_DB: 'from $TOOLGATE_DB', default: 'the default: no --db, no $TOOLGATE_DB' }

const PROBE_BUSY_MS = 5_000

/** Open (and migrate) the database, then prove a write would go through, without keeping one. */
function databaseCheck(file: string, from: DbSource): { check: Check; db?: Db } {
  const fixAccess = `make ${file} and its directory writable by this user (SQLite writes ${path.basename(file)}-wal and -shm beside it), or point --db / TOOLGATE_DB at the right file`
  if (!existsSync(file)) return { check: { name: 'database', status: 'warn', detail: `no database at ${file} (${SOURCES[from]}) yet`, fix: 'toolgate serve creates it on first start; if you meant another file, give --db or set TOOLGATE_DB' } }
  let db: Db
  try {
    db = openCliDb(file)
  } catch (e) {
    return { check: { name: 'database', status: 'fail', detail: `${file} does not open and migrate: ${(e as Error).message}`, fix: fixAccess } }
  }
  // a running toolgate holds the write lock for a moment at a time: wait for it, as a write would
  try {
    proveWritable(db, PROBE_BUSY_MS)
  } catch (e) {
    return { check: { name: 'database', status: 'fail', detail: `${file} is not writable: ${(e as Error).message}`, fix: fixAccess } }
  }
  const s = activityStorage(db)
  const oldest = s.oldestAt === null ? 'no activity records' : `${s.records} activity record${s.records === 1 ? '' : 's'} since ${new Date(s.oldestAt).toISOString()}`
  return { db, check: { name: 'database', status: 'ok', detail: `${file} (${SOURCES[from]}): opens, migrated (${schemaVersion(db).applied}), writable; ${mb(s.dbBytes)}, WAL ${mb(s.walBytes)}; ${oldest}` } }
}

function buildCheck(): Check {
  const file = buildIdFile()
  const dir = path.dirname(file)
  if (existsSync(file)) return { name: 'web app', status: 'ok', detail: `built in ${dir} (BUILD_ID ${readFileSync(file, 'utf8').trim()})` }
  return { name: 'web app', status: 'warn', detail: `not built: no BUILD_ID in ${dir}`, fix: 'toolgate serve builds it on first start (about 30 s); or build it now: npx next build' }
}

/**
 * Where the server is. A toolgate running on this database recorded its URL in the lease: check
 * that it answers there. Otherwise the address serve would listen on must be free, and a toolgate
 * answering there runs on another database than this one.
 */
async function serverCheck(db: Db | undefined, port: number, host: string, file: string): Promise<Check> {
  const holder = db ? runtimeHolder(db) : null
  if (holder) {
    const at = holder.url ?? 'an unrecorded URL'
    if (holder.url && await toolgateAnswersAt(holder.url)) return { name: 'server', status: 'ok', detail: `toolgate (pid ${holder.pid}) runs on this database and answers at ${at}` }
    return { name: 'server', status: 'warn', detail: `toolgate (pid ${holder.pid}) runs on this database but does not answer at ${at}`, fix: `look at its terminal; to restart it: kill ${holder.pid}, then toolgate serve` }
  }
  const where = `${host}:${port}`
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const probe = createServer()
    probe.once('error', (e) => resolve(e))
    probe.listen(port, host, () => probe.close(() => resolve(null)))
  })
  if (!error) return { name: 'server', status: 'ok', detail: `no toolgate runs on this database; serve would listen on ${where}, which is free` }
  if (error.code === 'EADDRINUSE') {
    if (await toolgateAnswersAt(`http://${urlHost(host)}:${port}`)) {
      return { name: 'server', status: 'warn', detail: `a toolgate answers at ${where}, but none runs the upstream runtime of ${file}: it was started on another database (or with TOOLGATE_RUNTIME=off)`, fix: 'give every command the database the server uses: --db FILE, or the same TOOLGATE_DB the server was started with' }
    }
    return { name: 'server', status: 'fail', detail: `${where} is in use by another program`, fix: `stop that program, or use another port: toolgate serve --port 8080 (check it with toolgate doctor --port 8080)` }
  }
  return { name: 'server', status: 'fail', detail: `cannot listen on ${where}: ${error.code ?? error.message}`, fix: error.code === 'EACCES' ? 'use a port above 1023: --port 8080' : 'give an address of this machine: --host 127.0.0.1' }
}

/**
 * The operator key: stored, and what TOOLGATE_API_KEY in this shell is to it. The variable is
 * the key only for a serve started with it; a CLI's shell may hold a copy, a stale one, or a typo.
 */
function keyCheck(db: Db | undefined): Check {
  const name = 'operator key'
  const fromEnv = envVar('TOOLGATE_API_KEY')
  if (!db) return { name, status: 'warn', detail: 'not checked: no database to read it from', fix: 'fix the database check first' }
  if (!fromEnv) {
    if (operatorKeyHash(db)) return { name, status: 'ok', detail: 'set (stored as a hash; printed once when it was made)' }
    return { name, status: 'warn', detail: 'no operator key yet', fix: 'toolgate serve makes one on first start and prints it once; or make one now: toolgate operator-key rotate' }
  }
  const min = operatorKey.MIN_API_KEY_LENGTH
  switch (operatorKey.envKeyState(db, fromEnv)) {
    case 'short': return { name, status: 'fail', detail: `TOOLGATE_API_KEY is ${fromEnv.length} characters long, under the minimum of ${min}: a toolgate serve started with it stops, and it is not the stored key`, fix: `export the key toolgate printed, or a new one of at least ${min} characters (openssl rand -base64 32); or unset TOOLGATE_API_KEY` }
    case 'none': return { name, status: 'ok', detail: 'no key stored yet; TOOLGATE_API_KEY is set, and toolgate serve started with it stores it as the key' }
    case 'other': return { name, status: 'warn', detail: 'TOOLGATE_API_KEY is set but does not match the stored key: a toolgate started without it uses its stored key, so --url calls that send it get 401 (a serve started with it would replace the stored key)', fix: 'export the key toolgate printed (or a new one: toolgate operator-key rotate), or unset TOOLGATE_API_KEY' }
    case 'copy': return { name, status: 'ok', detail: 'TOOLGATE_API_KEY is set and matches the stored key (the one toolgate made)' }
    case 'source': return { name, status: 'ok', detail: 'TOOLGATE_API_KEY is set and matches the stored key (stored from the variable by a serve started with it)' }
  }
}

/** What the runtime would start: a command on PATH (or a path, from its working directory), or a URL. */
function resolveTransport(t: Transport): { ok: true; detail: string } | { ok: false; detail: string } {
  if (!isStdio(t)) {
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
  const found = (envVar('PATH') ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, t.command)).find(executable)
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

/** The checks, printed for people (the lines that say what was checked first) or as JSON; exit 1 when one failed. */
function report(json: boolean, resolution: Record<string, string>, checks: Check[], heading: string[]): number {
  const ok = !checks.some((c) => c.status === 'fail')
  if (json) console.log(toJson({ ok, resolution, checks }))
  else {
    const look = terminal()
    const fixes = checks.filter((c) => c.fix).map((c) => `  ${forTerminal(c.name)}\n    ${wrap(forTerminal(c.fix!), look.width, 4)}`)
    console.log([
      ...heading,
      '',
      table(['CHECK', 'STATUS', 'DETAIL'], checks.map((c) => [c.name, c.status, c.detail]), look, (col, cell) => (col === 1 ? statusColour(cell) : undefined)),
      ...(fixes.length ? ['', 'Fix:', ...fixes] : []),
      '', ok ? paint(look, 'green', 'No check failed.') : paint(look, 'red', 'A check failed: fix it, then run toolgate doctor again.'),
    ].join('\n'))
  }
  return ok ? 0 : 1
}

/** The oldest PostgreSQL toolgate runs on (server_version_num). */
const PG_MIN = 150000

/**
 * doctor on PostgreSQL ($TOOLGATE_DATABASE_URL or --database-url): the driver, the connection,
 * the server's version and whether the database has every migration this toolgate ships. What
 * serve needs beyond that is not checked: serving on PostgreSQL is not available yet.
 */
async function postgresChecks(url: string): Promise<Check[]> {
  let drivers: [typeof import('@/db/pg/client'), typeof import('@/db/queries/schema-version'), typeof import('@/db/pg/url')]
  try {
    drivers = await Promise.all([import('@/db/pg/client'), import('@/db/queries/schema-version'), import('@/db/pg/url')])
  } catch (e) {
    return [{ name: 'pg', status: 'fail', detail: `the PostgreSQL driver does not load: ${(e as Error).message}`, fix: 'npm ci (pg is one of toolgate\'s dependencies)' }]
  }
  const [{ closePg, connectPg }, { pgSchemaVersion, pgServerVersion }, { maskUrl }] = drivers
  const serving: Check = { name: 'serve', status: 'warn', detail: 'serving on PostgreSQL is not available yet: toolgate serve refuses TOOLGATE_DATABASE_URL (db copy, db migrate and doctor work on it)', fix: 'serve on SQLite meanwhile: unset TOOLGATE_DATABASE_URL' }
  let db: Awaited<ReturnType<typeof connectPg>>
  try {
    db = await connectPg(url)
  } catch (e) {
    return [{ name: 'postgresql', status: 'fail', detail: (e as Error).message, fix: 'check the URL (user, password, host, port, database), that the server runs, and that it takes connections from this machine (listen_addresses, pg_hba.conf)' }, serving]
  }
  try {
    const v = await pgServerVersion(db)
    const m = await pgSchemaVersion(db)
    const version: Check = v.num >= PG_MIN ? { name: 'server version', status: 'ok', detail: `PostgreSQL ${v.version}` }
      : { name: 'server version', status: 'fail', detail: `PostgreSQL ${v.version} is older than 15`, fix: 'toolgate runs on PostgreSQL 15 or later: upgrade the server, or use another one' }
    const migrate = `toolgate db migrate --database-url URL (or toolgate db copy, which migrates an empty database first)`
    const migrations: Check = m.applied === m.latest ? { name: 'migrations', status: 'ok', detail: `current (${m.latest})` }
      : m.applied === null ? { name: 'migrations', status: 'fail', detail: 'none applied: the database has no toolgate schema yet', fix: migrate }
      : m.applied.startsWith('unknown') ? { name: 'migrations', status: 'fail', detail: `applied ${m.applied}: a newer toolgate migrated this database (this one ships up to ${m.latest})`, fix: 'run the toolgate that migrated it, or upgrade this one' }
      : { name: 'migrations', status: 'fail', detail: `${m.missing} behind: applied ${m.applied}, this toolgate ships ${m.latest}`, fix: migrate }
    return [{ name: 'postgresql', status: 'ok', detail: `${maskUrl(url)} answers` }, version, migrations, serving]
  } finally {
    await closePg(db)
  }
}

const URL_SOURCES: Record<UrlSource, string> = { '--url': 'from --url', TOOLGATE_URL: 'from $TOOLGATE_URL', 'running server': 'as the toolgate running on this database recorded it', default: 'the default: no toolgate runs on this database' }

export const doctorCommand: Command = command({
  name: 'doctor',
  summary: 'check this machine\'s setup: each check ok, warn or fail, with the fix',
  details: 'Checks Node.js against package.json engines, that better-sqlite3 loads, that the database opens, migrates and is writable (with its size, WAL size and oldest record), where the server is (a toolgate running on this database answers at the URL it recorded; else the port serve would listen on is free), that the web app is built, the operator key, that every enabled upstream\'s command resolves (or its URL parses), and Chromium (for browser tests only). Opening the database migrates it, as serve would. It first prints the database and the URL every command uses, and which rule chose each (--db, $TOOLGATE_DB or the default; --url, $TOOLGATE_URL, the running server or the default).',
  args: [],
  flags: {
    ...addressFlags,
    'database-url': { type: 'string', value: 'URL', default: '$TOOLGATE_DATABASE_URL', description: 'check a PostgreSQL database instead: the connection, the server version (15 or later) and the migrations' },
  },
  postgres: true,
  examples: [['toolgate doctor', 'is this machine ready to run toolgate?'], ['toolgate doctor --port 8080 --db /srv/toolgate.db', 'for a server started that way'], ['toolgate doctor -o json | jq \'.checks[] | select(.status != "ok")\'', 'only what needs you']],
  exits: { 0: 'no check failed (warnings allowed)', 1: 'a check failed, or bad flags' },
  run: async ({ values, json }) => {
    const { port, host } = listenAddress(values)
    const pgUrl = await databaseUrlOf(values['database-url'], '--database-url')
    if (pgUrl) {
      const { maskUrl } = await import('@/db/pg/url')
      const from = values['database-url'] !== undefined ? '--database-url' : '$TOOLGATE_DATABASE_URL'
      const checks = [nodeCheck(), environmentCheck(), ...await postgresChecks(pgUrl), buildCheck(), chromiumCheck()]
      return report(json, { database: maskUrl(pgUrl), database_from: from }, checks, [`database: ${maskUrl(pgUrl)} (PostgreSQL, from ${from})`])
    }
    const database = databaseOf(values.db)
    const driver = await driverCheck()
    // a driver that does not load fails every open: that is its fault, not the file's
    if (driver.status === 'ok') await loadChecks()
    const { check: dbCheck, db } = driver.status === 'ok' ? databaseCheck(database.file, database.from)
      : { check: { name: 'database', status: 'warn', detail: `not checked: better-sqlite3 does not load, so no database opens (${database.file})`, fix: 'fix better-sqlite3 first (above)' } satisfies Check, db: undefined }
    const checks: Check[] = [nodeCheck(), environmentCheck(), driver, dbCheck, await serverCheck(db, port, host, database.file), buildCheck(), keyCheck(db), ...upstreamChecks(db), chromiumCheck()]
    const url = serverUrlOf(db ? runtimeHolder(db) : null, undefined)
    if (db) closeStore(db)
    // the one rule every command follows (lib/server/address.ts), as it resolved here
    const resolution = { database: database.file, database_from: database.from, url: url.url, url_from: url.from, listen: `${host}:${port}` }
    return report(json, resolution, checks, [
      `database: ${resolution.database} (${SOURCES[database.from]})`,
      // where a new serve would listen only matters when none runs here: beside a running one it reads as a contradiction
      `toolgate: ${resolution.url} (${URL_SOURCES[url.from]})${url.from === 'running server' ? '' : `; a new toolgate serve here would listen on ${resolution.listen} ($PORT/$HOST or --port/--host, else 127.0.0.1:3000)`}`,
    ])
  },
})
