import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addServer } from '@/lib/admin/upstreams'
import { ensureOperatorKey } from '@/lib/admin/operator-key'
import { openDb } from '@/lib/server/database'
import { runCli, runProcess } from '@/tests/helpers/cli'
import { freshDb } from '@/tests/helpers/db'
import { freePort, startServer, type RunningServer } from '@/tests/helpers/server'
import { json, runCliAs } from './helpers'

interface Check { name: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string }
interface Report { ok: boolean; resolution: Record<string, string>; checks: Check[] }

const KEY = 'tg_op_doctor_test_key_000000000'
/** A web app build as Next.js leaves it: the BUILD_ID marker in the dist dir. */
function builtDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-build-'))
  writeFileSync(path.join(dir, 'BUILD_ID'), 'doctor-test-build\n')
  return dir
}
/** A database with one stdio upstream that resolves (node, by path) and one HTTP upstream. */
async function healthyDb(): Promise<string> {
  const { db, file } = freshDb()
  await addServer(db, { name: 'local', transport: { command: process.execPath, args: ['-e', ''] }, trusted: true }, { actor: 'test' })
  await addServer(db, { name: 'remote', transport: { url: 'https://mcp.example.com/mcp' } }, { actor: 'test' })
  db.$client.close()
  return file
}
const doctor = async (args: string[], env: Record<string, string> = {}) => {
  const r = await runCli(['doctor', '-o', 'json', ...args], { TOOLGATE_API_KEY: KEY, NEXT_DIST_DIR: builtDir(), ...env })
  return { code: r.code, report: json<Report>(r), r }
}
const check = (report: Report, name: string) => report.checks.find((c) => c.name === name)!

// several real CLI runs per test, on machines shared with other work
describe('toolgate doctor', { timeout: 180_000 }, () => {
  it('a healthy setup: every check ok (Chromium may only warn, for the browser tests), exit 0', async () => {
    const file = await healthyDb()
    const { code, report, r } = await doctor(['--db', file, '--port', String(await freePort())])
    expect(code, r.stderr).toBe(0)
    expect(report.ok).toBe(true)
    expect(report.checks.map((c) => c.name)).toEqual(['node', 'environment', 'better-sqlite3', 'database', 'server', 'web app', 'operator key', 'upstream local', 'upstream remote', 'chromium'])
    for (const c of report.checks.filter((x) => x.name !== 'chromium')) expect(c, c.name).toMatchObject({ status: 'ok' })
    expect(check(report, 'chromium').detail).toContain('for browser tests only')
    expect(['ok', 'warn']).toContain(check(report, 'chromium').status)
    expect(check(report, 'node').detail).toContain(process.versions.node)
    expect(check(report, 'database').detail).toMatch(/writable; [\d.]+ MB, WAL [\d.]+ MB; \d+ activity records since \d{4}-/)
    expect(check(report, 'web app').detail).toContain('doctor-test-build')
    expect(check(report, 'upstream local').detail).toContain(process.execPath)
    // the table says the same for people
    const table = await runCli(['doctor', '--db', file], { TOOLGATE_API_KEY: KEY, NEXT_DIST_DIR: builtDir() })
    expect(table.stdout).toMatch(/^database +ok +/m)
  })

  it('a TOOLGATE_* variable toolgate does not read warns, naming the one it likely meant; the rest of the report is unchanged', async () => {
    const { code, report } = await doctor(['--db', await healthyDb(), '--port', String(await freePort())], { TOOLGATE_OIDC_ISUER: 'https://idp.example', TOOLGATE_FROBNICATE: '1' })
    expect(code).toBe(0) // a warning, not a failure
    expect(check(report, 'environment')).toMatchObject({ status: 'warn', fix: expect.stringContaining('docs/configuration.md') })
    expect(check(report, 'environment').detail).toBe('toolgate reads no variable named TOOLGATE_FROBNICATE, TOOLGATE_OIDC_ISUER (did you mean TOOLGATE_OIDC_ISSUER?)')
    const clean = await doctor(['--db', await healthyDb(), '--port', String(await freePort())])
    expect(check(clean.report, 'environment')).toMatchObject({ status: 'ok' })
  })

  it('without a key anywhere, the operator key only warns and says how to get one', async () => {
    const { report } = await doctor(['--db', await healthyDb(), '--port', String(await freePort())], { TOOLGATE_API_KEY: '' })
    expect(check(report, 'operator key')).toMatchObject({ status: 'warn', fix: expect.stringContaining('toolgate operator-key rotate') })
  })

  describe('TOOLGATE_API_KEY in this shell, against the stored key', () => {
    /** A healthy database whose operator key toolgate generated (as a first serve without the variable does); the key, as printed. */
    async function generatedKey(): Promise<{ file: string; key: string }> {
      const file = await healthyDb()
      const db = openDb(file)
      const key = (await ensureOperatorKey(db, undefined))!
      db.$client.close()
      return { file, key }
    }
    const keyOf = async (file: string, key: string) => check((await doctor(['--db', file, '--port', String(await freePort())], { TOOLGATE_API_KEY: key })).report, 'operator key')

    it('the printed key matches; another value does not (a server started without it keeps its own); a short one fails, naming the minimum', async () => {
      const { file, key } = await generatedKey()
      expect(await keyOf(file, key)).toMatchObject({ status: 'ok', detail: 'TOOLGATE_API_KEY is set and matches the stored key (the one toolgate made)' })
      expect(await keyOf(file, 'tg_op_not_the_stored_key_0000000')).toMatchObject({ status: 'warn', detail: expect.stringContaining('does not match the stored key: a toolgate started without it uses its stored key'), fix: expect.stringContaining('export the key toolgate printed') })
      expect(await keyOf(file, 'short')).toMatchObject({ status: 'fail', detail: expect.stringContaining('TOOLGATE_API_KEY is 5 characters long, under the minimum of 24'), fix: expect.stringContaining('openssl rand') })
    })

    it('operator-key rotate works with a copy of the generated key in the shell (and says the copy is stale), and refuses when the key is the variable\'s own', async () => {
      const { file, key } = await generatedKey()
      const rotated = await runCli(['operator-key', 'rotate', '--db', file], { TOOLGATE_API_KEY: key })
      expect(rotated.code, rotated.stderr).toBe(0)
      expect(rotated.stdout).toMatch(/^tg_op_/)
      expect(rotated.stderr).toContain('TOOLGATE_API_KEY in this shell still holds the old key')
      expect(await keyOf(file, key)).toMatchObject({ status: 'warn', detail: expect.stringContaining('does not match the stored key') })
      // a serve started with the variable stores its hash: then the variable is where the key is changed
      const db = openDb(file)
      await ensureOperatorKey(db, KEY)
      db.$client.close()
      expect(await keyOf(file, KEY)).toMatchObject({ status: 'ok', detail: expect.stringContaining('stored from the variable by a serve started with it') })
      const refused = await runCli(['operator-key', 'rotate', '--db', file], { TOOLGATE_API_KEY: KEY })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('the operator key is TOOLGATE_API_KEY\'s value: a toolgate serve started with it stored it')
      expect(refused.stderr).toContain('hint: change TOOLGATE_API_KEY where toolgate is started')
      expect((await runCli(['operator-key', 'rotate', '--db', file], { TOOLGATE_API_KEY: '' })).code).toBe(0)
    })
  })

  it('a read-only database fails, saying to make it writable; exit 1', async () => {
    const file = await healthyDb()
    chmodSync(file, 0o444)
    chmodSync(path.dirname(file), 0o555)
    // root writes through file modes, so the check runs as an unprivileged user there
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    await runCli(['--version']) // the CLI bundle is built (as this user) before another user runs it
    const r = await runCliAs(['doctor', '-o', 'json', '--db', file, '--port', String(await freePort())], { ...asUser, env: { TOOLGATE_API_KEY: KEY, NEXT_DIST_DIR: builtDir() }, cwd: tmpdir() })
    expect(r.code, r.stderr).toBe(1)
    const report = json<Report>(r)
    expect(report.ok).toBe(false)
    expect(check(report, 'database')).toMatchObject({ status: 'fail', fix: expect.stringContaining(`make ${file} and its directory writable`) })
    expect(check(report, 'database').detail).toMatch(/readonly|read-only|unable to open/i)
  })

  it('better-sqlite3 built for another Node.js: says so and how to rebuild, and blames no file permission', async () => {
    // the Node 22 that npm test installs for the conformance suite, on this Node 20 build of the driver
    const node22 = path.resolve('tests/oauth/conformance/node_modules/.bin/node')
    const r = await runProcess(node22, [path.resolve('bin/toolgate.mjs'), 'doctor', '-o', 'json', '--db', await healthyDb(), '--port', String(await freePort())], { env: { TOOLGATE_API_KEY: KEY, NEXT_DIST_DIR: builtDir() } })
    expect(r.code).toBe(1)
    const report = json<Report>(r)
    expect(check(report, 'better-sqlite3')).toMatchObject({ status: 'fail', detail: expect.stringContaining('NODE_MODULE_VERSION'), fix: expect.stringContaining('built for another Node.js') })
    expect(check(report, 'better-sqlite3').fix).toContain('npm config get nodedir')
    expect(check(report, 'database')).toMatchObject({ status: 'warn', detail: expect.stringContaining('better-sqlite3 does not load') })
    expect(JSON.stringify(report)).not.toContain('writable')
  })

  it('a missing build warns with the fix (serve builds it on first start)', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'toolgate-nobuild-'))
    const { code, report } = await doctor(['--db', await healthyDb(), '--port', String(await freePort())], { NEXT_DIST_DIR: empty })
    expect(check(report, 'web app')).toMatchObject({ status: 'warn', detail: `not built: no BUILD_ID in ${empty}`, fix: expect.stringContaining('npx next build') })
    expect(code).toBe(0) // a warning is not a failure
  })

  it('an upstream whose command does not exist fails with the fix; disabling it (the fix) clears it', async () => {
    const file = await healthyDb()
    const { db } = freshDb(file)
    await addServer(db, { name: 'ghost', transport: { command: 'toolgate-no-such-command' } }, { actor: 'test' })
    await addServer(db, { name: 'relative', transport: { command: './missing-server.sh', cwd: tmpdir() } }, { actor: 'test' })
    db.$client.close()
    const port = String(await freePort())
    const { code, report } = await doctor(['--db', file, '--port', port])
    expect(code).toBe(1)
    expect(check(report, 'upstream ghost')).toMatchObject({ status: 'fail', detail: 'command "toolgate-no-such-command" is not on PATH', fix: expect.stringContaining('toolgate upstream disable ghost') })
    expect(check(report, 'upstream relative')).toMatchObject({ status: 'fail', detail: `command ${path.join(tmpdir(), 'missing-server.sh')} does not exist or is not executable` })
    const table = await runCli(['doctor', '--db', file, '--port', port], { TOOLGATE_API_KEY: KEY, NEXT_DIST_DIR: builtDir() })
    expect(table.code).toBe(1)
    expect(table.stdout).toMatch(/^upstream ghost +fail +command "toolgate-no-such-command" is not on PATH/m)
    expect(table.stdout).toContain('Fix:\n')
    for (const name of ['ghost', 'relative']) expect((await runCli(['upstream', 'disable', name, '--db', file])).code).toBe(0)
    const after = await doctor(['--db', file, '--port', port])
    expect(after.code).toBe(0)
    expect(after.report.checks.map((c) => c.name)).not.toContain('upstream ghost')
  })

  describe('where the server is', () => {
    let other: Server
    let toolgate: RunningServer
    let served: string
    beforeAll(async () => {
      other = createServer((_req, res) => res.end('not toolgate'))
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', r))
      served = await healthyDb()
      toolgate = await startServer({ TOOLGATE_DB: served, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on' })
    })
    afterAll(async () => {
      await new Promise((r) => other?.close(r))
      await toolgate?.stop()
    })

    it('a port taken by another program fails, with the fix', async () => {
      const taken = await doctor(['--db', await healthyDb(), '--port', String((other.address() as { port: number }).port)])
      expect(taken.code).toBe(1)
      expect(check(taken.report, 'server')).toMatchObject({ status: 'fail', detail: expect.stringContaining('in use by another program'), fix: expect.stringContaining('--port') })
    })

    it('a toolgate running on this database is found where it answers, whatever port doctor was told (or not told)', async () => {
      for (const args of [[], ['--port', String(await freePort())]]) {
        const { report } = await doctor(['--db', served, ...args])
        expect(check(report, 'server')).toMatchObject({ status: 'ok', detail: expect.stringMatching(new RegExp(`^toolgate \\(pid \\d+\\) runs on this database and answers at ${toolgate.url}$`)) })
        expect(report.resolution).toMatchObject({ database: served, database_from: '--db', url: toolgate.url, url_from: 'running server' })
      }
      const table = await runCli(['doctor', '--db', served], { TOOLGATE_API_KEY: KEY, NEXT_DIST_DIR: builtDir() })
      expect(table.stdout).toContain(`database: ${served} (from --db)`)
      expect(table.stdout).toContain(`toolgate: ${toolgate.url} (as the toolgate running on this database recorded it)`)
      expect(table.stdout).not.toContain('3000 is free')
      // where a new serve would listen is beside the point when one runs
      expect(table.stdout).not.toMatch(/serve (listens|would listen) on/)
    })

    it('a toolgate answering on the port of another database: a warning that says to use the server\'s database', async () => {
      const file = await healthyDb()
      const { code, report } = await doctor(['--db', file, '--port', new URL(toolgate.url).port])
      expect(code).toBe(0)
      expect(check(report, 'server')).toMatchObject({ status: 'warn', detail: expect.stringContaining(`none runs the upstream runtime of ${file}`), fix: expect.stringContaining('TOOLGATE_DB') })
      expect(report.resolution).toMatchObject({ database: file, url_from: 'default' })
    })
  })
})
