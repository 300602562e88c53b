import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '@/tests/helpers/cli'
import { demoStateFile, freshDb, load } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'

// One rule for where the database and the server are (lib/server/address.ts). A CLI that reads
// another database than the running server's says so when it can tell.
const root = path.resolve(import.meta.dirname, '..', '..')
const KEY = 'tg_op_resolution_key_000000000'
let server: RunningServer
let served: string
/** A project folder of its own (the real migrations linked in), so its default database is no one else's. */
let project: string

beforeAll(async () => {
  const { db, file } = freshDb()
  await load(db, {
    servers: [{ name: 'kb', transport: { url: 'http://127.0.0.1:9/mcp' }, connection: { state: 'ready' }, tools: [{ name: 'find', input_schema: {}, approval: { status: 'pending' } }] }],
  })
  db.$client.close()
  served = file
  server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on' })
  project = mkdtempSync(path.join(tmpdir(), 'toolgate-project-'))
  mkdirSync(path.join(project, 'data'))
  symlinkSync(path.join(root, 'db'), path.join(project, 'db'))
})
afterAll(async () => {
  await server?.stop()
})

/** The CLI in that project, with the running server's port as $PORT, as a shell that started it would have. */
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { TOOLGATE_ROOT: project, PORT: String(server.port), TOOLGATE_DB: '', TOOLGATE_URL: '', ...env })

describe('the CLI finds the database and the server the way the server did', () => {
  it('reading the default database while the server runs on another: the answer comes with a note naming both and the fix', async () => {
    const r = await cli(['tools', 'preflight', 'kb:find'])
    expect(r.code).toBe(12) // the default database knows no kb …
    expect(r.stderr).toContain(`this read ${path.join(project, 'data', 'toolgate.db')} (no --db, no $TOOLGATE_DB), but the toolgate answering at http://127.0.0.1:${server.port} does not run on it`)
    expect(r.stderr).toContain('--db FILE or TOOLGATE_DB=FILE')
    // … and with the server's database it reads what the server serves, without a note
    const same = await cli(['tools', 'preflight', 'kb:find'], { TOOLGATE_DB: served })
    expect(same.code).toBe(11)
    expect(same.stdout).toContain('tool_pending_approval')
    expect(same.stderr).not.toContain('note:')
  })

  it('a --db or $TOOLGATE_DB naming no file is refused (exit 1), and nothing is created; serve and state load may make one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-typo-'))
    const typo = path.join(dir, 'missing', 'typo.db')
    for (const [args, env] of [
      [['tools', 'preflight', 'kb:find', '--db', typo], {}],
      [['upstream', 'list'], { TOOLGATE_DB: typo }],
      [['settings', 'list', '-o', 'json', '--db', typo], {}],
    ] as [string[], Record<string, string>][]) {
      const r = await cli(args, env)
      expect([args, r.code]).toEqual([args, 1])
      expect(r.stdout).toBe('')
      expect(r.stderr).toContain(`no toolgate database at ${typo} (from ${env.TOOLGATE_DB ? '$TOOLGATE_DB' : '--db'}): check --db / TOOLGATE_DB (toolgate serve creates one)`)
    }
    expect(readdirSync(dir)).toEqual([])
    // a new database from a state file is what state load is for
    const fresh = path.join(dir, 'new.db')
    const loaded = await cli(['state', 'load', demoStateFile(), '--db', fresh])
    expect(loaded.code, loaded.stderr).toBe(0)
    expect(existsSync(fresh)).toBe(true)
  })

  it('tools preflight --in-band: a base URL gets "did you mean <url>/mcp?"; a page\'s 405 too; without --url it asks the running server\'s /mcp', async () => {
    const base = await cli(['tools', 'preflight', '--in-band', '--url', server.url, 'kb:find'])
    expect(base.code).toBe(1)
    expect(base.stderr).toContain(`--url ${server.url} is toolgate's base URL; --in-band asks its MCP endpoint: did you mean ${server.url}/mcp?`)
    const page = await cli(['tools', 'preflight', '--in-band', '--url', `${server.url}/servers`, 'kb:find'])
    expect(page.code).toBe(1)
    expect(page.stderr).toContain(`${server.url}/servers is not toolgate's MCP endpoint (it answered POST with HTTP 405): did you mean ${server.url}/mcp?`)
    // no --url: the URL the toolgate running on the database recorded (no agent token here, so /mcp answers 401: it was asked)
    const found = await cli(['tools', 'preflight', '--in-band', 'kb:find', '--db', served], { PORT: '9' })
    expect(found.code).toBe(1)
    expect(found.stderr).toContain(`toolgate: note: asking ${server.url}/mcp (the toolgate running on ${served}, plus /mcp; --url to ask another)`)
    expect(found.stderr).toContain(`${server.url}/mcp answered HTTP 401: missing credentials`)
    // none running, none answering at the default address: where to find the URL
    const none = await cli(['tools', 'preflight', '--in-band', 'kb:find'], { PORT: '9' })
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('--in-band needs toolgate\'s MCP endpoint: no --url, no $TOOLGATE_URL, no toolgate running on')
    expect(none.stderr).toContain('hint: give --url <base>/mcp: the base URL is what toolgate serve printed at start')
  })

  it('a wrong operator key over REST: the 401 comes with the credentials hint', async () => {
    const r = await cli(['tools', 'preflight', 'kb:find', '--url', server.url, '--api-key', 'tg_op_wrong'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('server answered 401: invalid X-API-Key')
    expect(r.stderr).toContain('hint: check the credentials: --token, --api-key or $TOOLGATE_API_KEY')
    const env = await cli(['tools', 'preflight', 'kb:find', '--url', server.url], { TOOLGATE_API_KEY: 'tg_op_wrong_from_the_environment' })
    expect(env.stderr).toContain('hint: check the credentials')
  })

})
