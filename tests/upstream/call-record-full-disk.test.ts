import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Db } from '@/db/client'
import { activity } from '@/db/schema'
import { insertActivity } from '@/lib/activity/record'
import { addServer } from '@/lib/admin/upstreams'
import { boundaryFromEnv } from '@/lib/http/boundary'
import { frontDoor } from '@/lib/server/front-door'
import { startSupervisor, supervisorOptions, type Supervisor } from '@/lib/upstream/supervisor'
import { freshDb } from '@/tests/helpers/db'
import { agentToken, connectionState, runtimeEnv, stdioFixture, waitFor } from './harness'

// Record or refuse on a full disk. SQLite's max_page_count caps the database of one
// connection, so this test runs toolgate's own front door and runtime in this process, on the
// connection it caps: every write past the cap fails with SQLITE_FULL, as on a full disk.
// The agent is a real MCP client over HTTP on loopback; the upstream is a real stdio server.

const fx = stdioFixture({ tools: [{ name: 'echo' }] })
let db: Db
let http: Server
let supervisor: Supervisor
let url: string
let agent: string

beforeAll(async () => {
  ;({ db } = freshDb())
  agent = await agentToken(db)
  http = createServer(frontDoor({ db: () => db, boundary: boundaryFromEnv({}), next: async (_req, res) => void res.writeHead(404).end() }))
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  supervisor = await startSupervisor(db, supervisorOptions(url, runtimeEnv))
  await addServer(db, { name: 'disk', transport: fx.transport, trusted: true }, { actor: 'test' })
  await waitFor('disk ready', () => connectionState(db, 'disk')?.state === 'ready')
})
afterAll(async () => {
  await supervisor?.stop()
  await new Promise((r) => http?.close(r))
})

async function client(requestId: string) {
  const c = new Client({ name: 'full-disk-test', version: '1' })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}`, 'x-request-id': requestId } } }))
  return c
}
const recordsOf = (requestId: string) => db.select().from(activity).where(eq(activity.requestId, requestId)).all()

/** Fill the database to its cap: records like a call's go in until one no longer fits. */
function fillDisk(): void {
  const pages = db.$client.pragma('page_count', { simple: true }) as number
  db.$client.pragma(`max_page_count = ${pages + 4}`)
  for (let i = 0; ; i++) {
    try {
      insertActivity(db, { requestId: `filler_${i}`, type: 'tool.call', actor: 'filler', server: 'disk', data: { target: 'disk:echo', arguments_hash: '0'.repeat(64), runtime: supervisor.instance } })
    } catch (e) {
      expect(String(e)).toMatch(/database or disk is full/)
      return
    }
  }
}

describe('a call whose record cannot be written on a full disk is not answered as a success', () => {
  it('the agent gets -32603 naming the full disk; the result is withheld; with room again calls are answered and recorded', async () => {
    const c = await client('full-disk')
    expect(await c.callTool({ name: 'disk:echo', arguments: { text: 'fine' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: {"text":"fine"}' }] })
    await waitFor('the first call and its outcome on the record', () => recordsOf('full-disk').some((r) => 'outcome' in r.data))
    const kept = recordsOf('full-disk').length

    fillDisk()
    const before = fx.calls().length
    const failed = await c.callTool({ name: 'disk:echo', arguments: { text: 'no room' } }).then((r) => ({ result: r }), (e: { code?: number; message: string }) => ({ error: e }))
    expect('result' in failed ? failed.result : undefined).toBeUndefined()
    const error = (failed as { error: { code?: number; message: string } }).error
    expect(error.code).toBe(-32603)
    expect(error.message).toMatch(/the call's record could not be committed, so its result is withheld .*database or disk is full/)
    expect(error.message).not.toContain('no room')
    await waitFor('the upstream got it: it was forwarded at once', () => fx.calls().length === before + 1)
    expect(recordsOf('full-disk')).toHaveLength(kept) // nothing of the second call

    db.$client.pragma('max_page_count = 1073741823')
    expect(await c.callTool({ name: 'disk:echo', arguments: { text: 'room' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: {"text":"room"}' }] })
    await waitFor('both parts of the third call', () => recordsOf('full-disk').length === kept + 2)
    await c.close()
  })
})
