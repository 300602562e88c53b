import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { createProfile } from '@/lib/admin/profiles'
import { updateSettings } from '@/lib/admin/settings'
import { createAgentToken, revokeAgentToken } from '@/lib/admin/tokens'
import { addServer } from '@/lib/admin/upstreams'
import { freshDb } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { rpcBody } from '@/tests/helpers/rpc'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { connectionState, runtimeEnv, stdioFixture, waitFor } from '@/tests/upstream/harness'

// Who a caller is: its token's immutable id, never its name. A token re-created under a revoked
// token's name is someone else; an anonymous caller is a new caller on every request.

const ctx = { actor: 'test' }
const fx = stdioFixture({ tools: [{ name: 'report' }, { name: 'transfer' }] })
let db: Db
let dbFile: string
let server: RunningServer
let id = 1

beforeAll(async () => {
  ;({ db, file: dbFile } = freshDb())
  server = await startServer({ TOOLGATE_DB: dbFile, TOOLGATE_API_KEY: 'tg_op_identity_test_key_00000000', ...runtimeEnv })
  await addServer(db, { name: 'data', transport: fx.transport, trusted: true }, ctx)
  await waitFor('data ready', () => connectionState(db, 'data')?.state === 'ready')
  const on = await runCli(['tools', 'call-approval', 'data:transfer', 'on', '--db', dbFile])
  expect(on.code, on.stderr).toBe(0)
  await updateSettings(db, { call_approval_wait_ms: 1000 }, ctx)
}, 60_000)
afterAll(async () => {
  await server?.stop()
})

/** One 2025-11-25 JSON-RPC request, with a token or (null) as an anonymous loopback caller. */
async function rpc(token: string | null, method: string, params: Record<string, unknown>) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
  })
  return rpcBody(res)
}
const token = async (name: string) => (await createAgentToken(db, name, { allowedServers: ['*'], profilePin: null }, ctx)).token

describe('identity is the token’s id', () => {
  it('a token re-created under a revoked token’s name cannot read the old token’s task results', async () => {
    const old = await token('x')
    const created = await rpc(old, 'tools/call', { name: 'data:report', arguments: { account: 'old x' }, task: { ttl: 600_000 } })
    const taskId = (created.result!.task as { taskId: string }).taskId
    await waitFor('the task done', async () => ((await rpc(old, 'tasks/get', { taskId })).result as { status?: string } | undefined)?.status === 'completed')
    expect(JSON.stringify((await rpc(old, 'tasks/result', { taskId })).result)).toContain('old x')

    await revokeAgentToken(db, 'x', ctx)
    const fresh = await token('x')
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const r = await rpc(fresh, method, { taskId })
      expect(r.error, method).toMatchObject({ code: -32602, message: expect.stringMatching(/unknown task/) })
      expect(JSON.stringify(r), method).not.toContain('old x')
    }
    expect((await rpc(fresh, 'tasks/list', {})).result).toEqual({ tasks: [] })
  })

  it('nor join a held call the old token made', async () => {
    const old = await token('y')
    const first = await rpc(old, 'tools/call', { name: 'data:transfer', arguments: { amount: 5 } })
    const oldCall = (first.result!.structuredContent as { call_id: string }).call_id
    await revokeAgentToken(db, 'y', ctx)
    const fresh = await token('y')
    const again = await rpc(fresh, 'tools/call', { name: 'data:transfer', arguments: { amount: 5 } })
    expect((again.result!.structuredContent as { call_id: string }).call_id).not.toBe(oldCall)
  })
})

describe('an anonymous caller', () => {
  it('shares no state with other anonymous callers: tasks and log levels need a token', async () => {
    await createProfile(db, 'everything', ['data'], ctx)
    await updateSettings(db, { mcp_anonymous_profile: 'everything' }, ctx)
    // it may call, as the anonymous profile allows
    expect((await rpc(null, 'tools/call', { name: 'data:report', arguments: {} })).result?.isError).toBeFalsy()
    const task = await rpc(null, 'tools/call', { name: 'data:report', arguments: {}, task: {} })
    expect(task.error).toMatchObject({ code: -32602, message: expect.stringMatching(/needs an agent token/) })
    const level = await rpc(null, 'logging/setLevel', { level: 'error' })
    expect(level.error).toMatchObject({ code: -32602, message: expect.stringMatching(/needs an agent token/) })
    await updateSettings(db, { mcp_anonymous_profile: null }, ctx)
  })
})
