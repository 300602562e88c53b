import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '@/tests/helpers/cli'
import { freshDb, load } from '@/tests/helpers/db'
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

})
