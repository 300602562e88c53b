import { afterAll, describe, expect, it } from 'vitest'
import { and, eq, like } from 'drizzle-orm'
import { activity } from '@/db/schema'
import { addServer } from '@/lib/admin/upstreams'
import { freshDb, load } from '@/tests/helpers/db'
import { rpcBody } from '@/tests/helpers/rpc'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { agentToken, connectionState, runtimeEnv, stdioFixture, waitFor } from '@/tests/upstream/harness'

// No verdict without its record, even when the process dies mid-load: every check a client got
// an answer for is in the log after a kill -9 and a restart — and so is every call (its first
// part, the call itself, is committed before the call is answered: contract §12).

const KEY = 'tg_op_durability_test_key_000000'
const running: RunningServer[] = []
afterAll(async () => { for (const s of running) await s.stop() })

/**
 * 16 clients send requests (`send` says whether it got its answer) until more than 100 are
 * answered — a count reached, however long a busy machine takes — then the server is killed -9.
 * The ids of the answered requests: each was promised a record.
 */
async function crashUnderLoad(server: RunningServer, prefix: string, send: (id: string) => Promise<boolean>): Promise<string[]> {
  const answered: string[] = []
  let failures = 0
  let n = 0
  let stop = false
  const client = async () => {
    while (!stop) {
      const id = `${prefix}_${n++}`
      try {
        if (await send(id)) answered.push(id)
      } catch {
        failures++ // the connection died with the server: no answer, so no promise
        if (failures > 200) stop = true
        await new Promise((r) => setTimeout(r, 5))
      }
    }
  }
  const clients = Array.from({ length: 16 }, client)
  await waitFor('more than 100 requests answered', () => answered.length > 100)
  await server.crash()
  stop = true
  await Promise.all(clients)
  expect(failures).toBeGreaterThan(0) // the crash cut the load
  return answered
}

describe('durability under load', () => {
  it('kill -9 while 16 clients check concurrently: every answered request id is on the record after the restart', async () => {
    const { db, file } = freshDb()
    // a transport (never connected: the runtime is off) lets its `ready` be true
    await load(db, { servers: [{ name: 'a', transport: { url: 'http://127.0.0.1:9/mcp' }, connection: { state: 'ready' }, tools: [{ name: 't', input_schema: {} }, { name: 'u', input_schema: {} }] }] })
    const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY })
    running.push(server)

    const answered = await crashUnderLoad(server, 'crash', async (id) => {
      const res = await fetch(`${server.url}/api/v1/preflight`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'x-request-id': id },
        body: JSON.stringify({ tools: [{ id: 'a:t' }, { id: 'a:u' }] }),
      })
      const body = await res.json()
      return res.status === 200 && body.data.request_id === id
    })

    const again = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY })
    running.push(again)
    const recorded = new Set(db.select({ id: activity.requestId }).from(activity).where(like(activity.requestId, 'crash_%')).all().map((r) => r.id))
    const lost = answered.filter((id) => !recorded.has(id))
    expect(lost, `${lost.length} of ${answered.length} answered checks are not on the record`).toEqual([])
    // and the restarted server answers and records as before
    const res = await fetch(`${again.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'x-request-id': 'after_crash' }, body: JSON.stringify({ tools: [{ id: 'a:t' }] }),
    })
    expect((await res.json()).data.verdict).toBe('ready')
    expect(db.select().from(activity).where(like(activity.requestId, 'after_crash')).all()).toHaveLength(1)
  })

  it('kill -9 while 16 clients call a tool: every answered call is on the record after the restart', async () => {
    const { db, file } = freshDb()
    const agent = await agentToken(db)
    const fx = stdioFixture({ tools: [{ name: 't' }] })
    const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, ...runtimeEnv })
    running.push(server)
    await addServer(db, { name: 'a', transport: fx.transport, trusted: true }, { actor: 'test' })
    await waitFor('a ready', () => connectionState(db, 'a')?.state === 'ready')

    const answered = await crashUnderLoad(server, 'call', async (id) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${agent}`, 'x-request-id': id },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a:t', arguments: { text: id } } }),
      })
      const body = await rpcBody<{ result?: { isError?: boolean; content: { text: string }[] } }>(res)
      return res.headers.get('x-request-id') === id && body.result?.content[0].text === `t: {"text":"${id}"}`
    })

    const again = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY })
    running.push(again)
    const recorded = new Set(db.select({ id: activity.requestId }).from(activity)
      .where(and(like(activity.requestId, 'call_%'), eq(activity.type, 'tool.call'))).all().map((r) => r.id))
    const lost = answered.filter((id) => !recorded.has(id))
    expect(lost, `${lost.length} of ${answered.length} answered calls are not on the record`).toEqual([])
  })
})
