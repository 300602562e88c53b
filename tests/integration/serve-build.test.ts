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
