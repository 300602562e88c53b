import { copyFileSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshDb, load } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { waitFor } from '@/tests/upstream/harness'

const root = path.resolve(import.meta.dirname, '..', '..')
const KEY = 'tg_op_build_watch_key_00000000'

// A build folder of the server's own (the real build's entries linked in, its own BUILD_ID), so
// replacing the build under it touches nothing any other test serves from.
const dist = `.next-watch-${process.pid}`
let server: RunningServer
beforeAll(async () => {
  const real = path.join(root, process.env.NEXT_DIST_DIR || '.next')
  mkdirSync(path.join(root, dist))
  for (const e of readdirSync(real)) {
    if (e === 'BUILD_ID') copyFileSync(path.join(real, e), path.join(root, dist, e))
    else symlinkSync(path.join(real, e), path.join(root, dist, e))
  }
  const { db, file } = freshDb()
  await load(db, { servers: [{ name: 'kb', transport: { url: 'http://127.0.0.1:9/mcp' }, connection: { state: 'ready' }, tools: [{ name: 'find', input_schema: {} }] }] })
  db.$client.close()
  server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, NEXT_DIST_DIR: dist })
})
afterAll(async () => {
  await server?.stop()
  rmSync(path.join(root, dist), { recursive: true, force: true })
})

describe('a build replaced under a running server (another next build into its folder)', () => {
  it('is said once in the log, pages answer 503 naming why, and /api/v1 keeps working', { timeout: 60_000 }, async () => {
    expect((await fetch(`${server.url}/login`)).status).toBe(200)
    writeFileSync(path.join(root, dist, 'BUILD_ID'), 'replaced-by-another-build')

    await waitFor('the log line', () => server.log().includes('was replaced under this running toolgate'))
    const line = server.log().split('\n').find((l) => l.includes('was replaced under this running toolgate'))!
    expect(line).toContain(`BUILD_ID`)
    expect(line).toContain('replaced-by-another-build')
    expect(line).toContain('until toolgate restarts')

    const page = await fetch(`${server.url}/login`)
    expect(page.status).toBe(503)
    expect(await page.text()).toMatch(/was replaced under this running toolgate.*Restart toolgate/)

    const rest = await fetch(`${server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ tools: [{ id: 'kb:find' }] }),
    })
    expect(rest.status).toBe(200)
    expect((await rest.json()).data.verdict).toBe('ready')
    // said once, not on every request
    expect(server.log().split('was replaced under this running toolgate').length - 1).toBe(1)
  })
})

describe('what a start prints', () => {
  it('the new operator key comes last, framed; no "Running next.config.mjs"; an MCP exchange adds no SDK warning', { timeout: 120_000 }, async () => {
    const { db, file } = freshDb()
    await load(db, { agent_tokens: [{ name: 'agent', token: 'tg_at_serve_output_test_00', allowed_servers: ['*'], profile_pin: null }] })
    db.$client.close()
    const s = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: '' })
    try {
      await waitFor('the banner and the key', () => s.log().includes('└'))
      const lines = s.log().trimEnd().split('\n')
      const key = lines.findIndex((l) => /│ {3}tg_op_\S+ +│/.test(l))
      expect(key).toBeGreaterThan(lines.findIndex((l) => l.startsWith('toolgate is running at')))
      expect(lines.slice(key - 3)).toEqual([
        expect.stringMatching(/^┌─+┐$/),
        expect.stringMatching(/^│ operator API key \(shown this once; toolgate keeps only its hash\): +│$/),
        expect.stringMatching(/^│ +│$/),
        lines[key], expect.stringMatching(/^│ +│$/),
        expect.stringMatching(/^│ Copy it now: /), expect.stringMatching(/^│ Lost it\? /),
        expect.stringMatching(/^└─+┘$/),
      ])
      // the key works, and the modern JSON answer (once the SDK's json mode) prints nothing more
      const apiKey = /tg_op_\S+/.exec(lines[key])![0]
      expect((await fetch(`${s.url}/api/v1/whoami`, { headers: { 'x-api-key': apiKey } })).status).toBe(200)
      const before = s.log()
      const rpc = await fetch(`${s.url}/mcp`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer tg_at_serve_output_test_00', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      })
      expect(rpc.status).toBe(200)
      expect(rpc.headers.get('content-type')).toContain('application/json')
      expect(s.log()).toBe(before)
      expect(s.log()).not.toContain('Running next.config')
      expect(s.log()).not.toContain('responseMode')
    } finally {
      await s.stop()
    }
  })
})
