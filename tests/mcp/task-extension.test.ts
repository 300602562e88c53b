import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { createProfile } from '@/lib/admin/profiles'
import { updateSettings } from '@/lib/admin/settings'
import { createAgentToken } from '@/lib/admin/tokens'
import { acceptTaskHandles, TASK_HANDLE } from '@/lib/upstream/task-handles'
import { runCli } from '@/tests/helpers/cli'
import { startGateway } from '@/tests/helpers/gateway'
import type { RunningServer } from '@/tests/helpers/server'
import { everything, stdioFixture, waitFor } from '@/tests/upstream/harness'

// The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) as toolgate offers it to
// 2026-07-28 agents: the official 2.x client declares it, gets a task handle for its call, and
// follows the task with tasks/get and tasks/cancel — over the same task store, gate and
// visibility as 2025-11-25's tasks (tests/upstream/proxying.test.ts).

const KEY = 'tg_op_task_extension_test_key_00'
const TASKS = 'io.modelcontextprotocol/tasks'
const ctx = { actor: 'test' }
const release = path.join(mkdtempSync(path.join(tmpdir(), 'toolgate-task-ext-')), 'release')
const fx = stdioFixture({
  tools: [
    { name: 'quick' },
    { name: 'held', releaseFile: release },
    { name: 'forever', sleepMs: 60_000 },
    { name: 'oops', error: true },
    { name: 'broken', rpcError: { code: -32050, message: 'the backend is down', data: { retry: false } } },
  ],
})

let db: Db
let dbFile: string
let server: RunningServer
let agent: string

beforeAll(async () => {
  ;({ db, dbFile, server, agent } = await startGateway(KEY, { upstreams: { fx: fx.transport, everything: everything('stdio') } }))
}, 60_000)
afterAll(async () => {
  await server?.stop()
})

/** The official 2.x client at 2026-07-28, declaring the Tasks extension unless told not to; task handles made readable (the SDK refuses them unread). */
async function client(opts: { token?: string; tasks?: boolean; answers?: 'elicitation' | 'sampling' } = {}): Promise<Client> {
  const c = new Client({ name: 'task-extension-test', version: '1' }, {
    capabilities: {
      ...(opts.tasks === false ? {} : { extensions: { [TASKS]: {} } }),
      ...(opts.answers === 'elicitation' ? { elicitation: { form: {} } } : opts.answers === 'sampling' ? { sampling: {} } : {}),
    },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  })
  await c.connect(acceptTaskHandles(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${opts.token ?? agent}` } } })))
  return c
}

interface WireTask { taskId: string; status: string; inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>; statusMessage?: string; createdAt: string; lastUpdatedAt: string; ttlMs: number | null; pollIntervalMs?: number; result?: CallToolResult; error?: { code: number; message: string; data?: unknown } }
const taskSchema = z.looseObject({ taskId: z.string(), status: z.string() })
const handleOf = (r: unknown) => (r as Record<string, unknown>)[TASK_HANDLE] as WireTask | undefined
const getTask = async (c: Client, taskId: string) => await c.request({ method: 'tasks/get', params: { taskId } }, taskSchema) as unknown as WireTask
const errorOf = (p: Promise<unknown>) => p.then(() => { throw new Error('answered without an error') }, (e: { code?: number; message: string; data?: unknown }) => ({ code: e.code, message: e.message, data: e.data }))
async function settled(c: Client, taskId: string): Promise<WireTask> {
  return waitFor(`task ${taskId} ended`, async () => {
    const t = await getTask(c, taskId)
    return ['completed', 'failed', 'cancelled'].includes(t.status) ? t : undefined
  })
}
/** What a call answers, apart from the _meta the SDK stamps on a response (its server's identity). */
const allText = (r: CallToolResult) => r.content.map((x) => (x as { text?: string }).text ?? '').join('\n')
/** An acknowledgement: an empty result, apart from that _meta. */
const ack = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== '_meta'))
const plain = (r: CallToolResult) => ({ content: r.content, isError: r.isError, structuredContent: r.structuredContent })

let nextId = 1
/** One raw 2026-07-28 request, to read the wire itself; `tasks: false` declares nothing; `token: null` is anonymous. */
async function raw(method: string, params: Record<string, unknown>, opts: { tasks?: boolean; token?: string | null } = {}) {
  const name = method === 'tools/call' ? params.name : params.taskId
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}), ...(opts.token === null ? {} : { authorization: `Bearer ${opts.token ?? agent}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0', id: nextId++, method, params: {
        ...params, _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': opts.tasks === false ? {} : { extensions: { [TASKS]: {} } },
        },
      },
    }),
  })
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  return await res.json() as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }
}
const records = async (type: string) => JSON.parse((await runCli(['activity', 'list', '--type', type, '--limit', '100', '-o', 'json', '--db', dbFile])).stdout) as { id: number; request_id: string; actor: string; server: string; data: Record<string, unknown> }[]

describe('the Tasks extension on 2026-07-28', () => {
  it('is declared in server/discover\'s capabilities.extensions, with no settings', async () => {
    const c = await client()
    expect(c.getServerCapabilities()?.extensions?.[TASKS]).toEqual({})
    await c.close()
  })

  it('a call from a client that declares it is answered with a task handle, followed with tasks/get to the result a plain call gives', async () => {
    const c = await client()
    const args = { city: 'Oslo' }
    const handle = handleOf(await c.callTool({ name: 'fx:quick', arguments: args }))
    expect(handle).toMatchObject({ taskId: expect.stringMatching(/^tgt_/), status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1_000 })
    expect(Date.parse(handle!.createdAt)).not.toBeNaN()
    const done = await settled(c, handle!.taskId)
    expect(done.status).toBe('completed')
    expect(done.error).toBeUndefined()

    const p = await client({ tasks: false })
    const direct = await p.callTool({ name: 'fx:quick', arguments: args }) as CallToolResult
    expect(handleOf(direct)).toBeUndefined()
    expect(plain(done.result!)).toEqual(plain(direct))
    expect((direct.content[0] as { text: string }).text).toBe('quick: {"city":"Oslo"}')
    await p.close()
    await c.close()

    // on the wire: the handle is a CreateTaskResult (resultType "task", no content); tasks/get is a complete result
    const created = await raw('tools/call', { name: 'fx:quick', arguments: {} })
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' })
    expect(created.result!.content).toBeUndefined()
    const polled = await raw('tasks/get', { taskId: created.result!.taskId })
    expect(polled.result).toMatchObject({ resultType: 'complete', taskId: created.result!.taskId })
  })

  it('a task is its creating token\'s alone: to another token its id is as unknown as a made-up one', async () => {
    const c = await client()
    const { taskId } = handleOf(await c.callTool({ name: 'fx:held', arguments: {} }))!
    const other = await client({ token: (await createAgentToken(db, 'other-ext-tasks', { allowedServers: ['*'], profilePin: null }, ctx)).token })
    const madeUp = 'tgt_no_such_task_000000'
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'] as const) {
      const params = (id: string) => (method === 'tasks/update' ? { taskId: id, inputResponses: {} } : { taskId: id })
      const foreign = await errorOf(other.request({ method, params: params(taskId) }, z.looseObject({})))
      const unknown = await errorOf(other.request({ method, params: params(madeUp) }, z.looseObject({})))
      expect(foreign.code, method).toBe(-32602)
      expect(foreign.message.replace(taskId, 'ID'), method).toBe(unknown.message.replace(madeUp, 'ID'))
      expect(foreign.message, method).toMatch(/unknown task/)
    }
    // the other token's cancel did nothing: the task runs on, for its own caller
    expect((await getTask(c, taskId)).status).toBe('working')
    writeFileSync(release, '')
    expect((await settled(c, taskId)).status).toBe('completed')
    await other.close()
    await c.close()
  })

  it('tasks/cancel cancels the upstream call, and is on the record; an ended task stays as it ended', async () => {
    const c = await client()
    const { taskId } = handleOf(await c.callTool({ name: 'fx:forever', arguments: {} }))!
    await waitFor('the call reached the upstream', () => fx.calls().some((x) => x.name === 'forever'))
    expect(ack(await c.request({ method: 'tasks/cancel', params: { taskId } }, z.looseObject({})))).toEqual({})
    await waitFor('the upstream saw the cancellation', () => fx.calls().some((x) => x.name === 'forever' && x.cancelled))
    expect(await getTask(c, taskId)).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by the caller' })
    expect((await getTask(c, taskId)).result).toBeUndefined()
    expect((await records('task.cancelled')).filter((r) => r.data.task_id === taskId)).toMatchObject([{ data: { target: 'fx:forever' } }])
    // too late: acknowledged (the revision allows it), nothing changes, nothing more on the record
    expect(ack(await c.request({ method: 'tasks/cancel', params: { taskId } }, z.looseObject({})))).toEqual({})
    expect((await records('task.cancelled')).filter((r) => r.data.task_id === taskId)).toHaveLength(1)
    await c.close()
  })

  it('a refused call is answered at once, as the plain call; an unknown tool is -32602 either way', async () => {
    expect((await runCli(['tools', 'block', 'fx:oops', '--db', dbFile])).code).toBe(0)
    try {
      const asTask = await raw('tools/call', { name: 'fx:oops', arguments: {} })
      const asPlain = await raw('tools/call', { name: 'fx:oops', arguments: {} }, { tasks: false })
      expect(asTask.result).toMatchObject({ resultType: 'complete', isError: true, _meta: { 'app.mcpproxy/required-tools': { reason: 'tool_blocked_by_user' } } })
      expect(asTask.result!.taskId).toBeUndefined()
      const { _meta: taskMeta, ...taskRest } = asTask.result as { _meta: Record<string, unknown> }
      const { _meta: plainMeta, ...plainRest } = asPlain.result as { _meta: Record<string, unknown> }
      expect(taskRest).toEqual(plainRest)
      expect(taskMeta['app.mcpproxy/required-tools']).toEqual(plainMeta['app.mcpproxy/required-tools'])
    } finally {
      expect((await runCli(['tools', 'enable', 'fx:oops', '--db', dbFile])).code).toBe(0)
    }
    const unknown = await raw('tools/call', { name: 'fx:nope', arguments: {} })
    expect(unknown.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') })
    expect(unknown.error).toEqual((await raw('tools/call', { name: 'fx:nope', arguments: {} }, { tasks: false })).error)
  })

  it('a tool error completes the task with that result; a JSON-RPC error fails it with that error, as the plain call answers', async () => {
    const c = await client()
    const p = await client({ tasks: false })
    const oops = await settled(c, handleOf(await c.callTool({ name: 'fx:oops', arguments: {} }))!.taskId)
    expect(oops.status).toBe('completed')
    expect(plain(oops.result!)).toEqual(plain(await p.callTool({ name: 'fx:oops', arguments: {} }) as CallToolResult))
    expect(oops.result!.isError).toBe(true)

    const broken = await settled(c, handleOf(await c.callTool({ name: 'fx:broken', arguments: {} }))!.taskId)
    expect(broken.status).toBe('failed')
    expect(broken.result).toBeUndefined()
    const direct = await errorOf(p.callTool({ name: 'fx:broken', arguments: {} }))
    expect(broken.error).toEqual({ code: -32050, message: 'the backend is down', data: { retry: false } })
    expect(direct).toEqual(broken.error)
    await p.close()
    await c.close()
  })

  // (over stdio a question reaches its caller only while its call is the one in flight on the
  // connection — docs/upstreams.md, "Which call?" — and a cancelled call counts for 10 s: the
  // cancellation runs after the other questions)
  const ELICIT = 'everything:trigger-elicitation-request'
  it('what the upstream asks during the task, the task asks its caller (input_required), and the answer (tasks/update) reaches the upstream', async () => {
    const c = await client({ answers: 'elicitation' })
    const { taskId } = handleOf(await c.callTool({ name: ELICIT, arguments: {} }))!
    const asking = await waitFor('the task asks', async () => {
      const t = await getTask(c, taskId)
      return t.status === 'input_required' ? t : undefined
    })
    const keys = Object.keys(asking.inputRequests ?? {})
    expect(keys).toHaveLength(1)
    expect(asking.inputRequests![keys[0]]).toMatchObject({ method: 'elicitation/create', params: { message: 'Please provide inputs for the following fields:' } })
    // asked until answered, under the same key
    expect(Object.keys((await getTask(c, taskId)).inputRequests ?? {})).toEqual(keys)
    // an answer to a key never asked is ignored
    expect(ack(await c.request({ method: 'tasks/update', params: { taskId, inputResponses: { nope: { action: 'accept', content: { name: 'Nobody' } } } } }, z.looseObject({})))).toEqual({})
    expect((await getTask(c, taskId)).status).toBe('input_required')
    // the key is the task's: a plain call's retry naming it as its requestState takes no step of the task's call
    const retry = await (await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': ELICIT, authorization: `Bearer ${agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: ELICIT, arguments: {}, requestState: keys[0], inputResponses: { ask: { action: 'accept', content: { name: 'Mallory' } } }, _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      } } }),
    })).json() as { error?: { code: number; message: string } }
    expect(retry.error).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid or expired requestState') })
    expect((await getTask(c, taskId)).status).toBe('input_required')
    expect(ack(await c.request({ method: 'tasks/update', params: { taskId, inputResponses: { [keys[0]]: { action: 'accept', content: { name: 'Ada Lovelace' } } } } }, z.looseObject({})))).toEqual({})
    const done = await settled(c, taskId)
    expect(done.status).toBe('completed')
    expect(done.inputRequests).toBeUndefined()
    expect(allText(done.result!)).toContain('Ada Lovelace')
    await c.close()

    // a client that cannot answer: the question is declined, as on a plain call
    const mute = await client()
    const declined = await settled(mute, handleOf(await mute.callTool({ name: ELICIT, arguments: {} }))!.taskId)
    expect(declined.status).toBe('completed')
    expect(allText(declined.result!)).toMatch(/declined/i)
    await mute.close()
  })

  it('a sampling the upstream asks for during the task goes to the caller\'s model the same way', async () => {
    const c = await client({ answers: 'sampling' })
    const { taskId } = handleOf(await c.callTool({ name: 'everything:trigger-sampling-request', arguments: { prompt: 'in a task?' } }))!
    const asking = await waitFor('the task asks', async () => {
      const t = await getTask(c, taskId)
      return t.status === 'input_required' ? t : undefined
    })
    const [[key, request]] = Object.entries(asking.inputRequests!)
    expect(request.method).toBe('sampling/createMessage')
    expect(request.params.messages).toMatchObject([{ content: { text: 'Resource trigger-sampling-request context: in a task?' } }])
    await c.request({ method: 'tasks/update', params: { taskId, inputResponses: { [key]: { role: 'assistant', content: { type: 'text', text: 'forty-four' }, model: 'agent-model' } } } }, z.looseObject({}))
    const done = await settled(c, taskId)
    expect(done.status).toBe('completed')
    expect(allText(done.result!)).toContain('forty-four')
    await c.close()
  })

  it('a task waiting on its question is cancelled with its question', async () => {
    const c = await client({ answers: 'elicitation' })
    const { taskId } = handleOf(await c.callTool({ name: ELICIT, arguments: {} }))!
    await waitFor('the task asks', async () => (await getTask(c, taskId)).status === 'input_required')
    await c.request({ method: 'tasks/cancel', params: { taskId } }, z.looseObject({}))
    const cancelled = await getTask(c, taskId)
    expect(cancelled.status).toBe('cancelled')
    expect(cancelled.inputRequests).toBeUndefined()
    await c.close()
  })

  it('a client that does not declare it gets plain results, and is told tasks/get needs it (-32021)', async () => {
    const p = await client({ tasks: false })
    const r = await p.callTool({ name: 'fx:quick', arguments: { n: 1 } }) as CallToolResult
    expect(handleOf(r)).toBeUndefined()
    expect((r.content[0] as { text: string }).text).toBe('quick: {"n":1}')
    await p.close()
    const { taskId } = (await raw('tools/call', { name: 'fx:quick', arguments: {} })).result as { taskId: string }
    for (const method of ['tasks/get', 'tasks/cancel']) {
      expect((await raw(method, { taskId }, { tasks: false })).error, method).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } })
    }
  })

  it('a listen stream that names tasks needs the extension declared (-32021); declared, it opens', async () => {
    const { taskId } = (await raw('tools/call', { name: 'fx:quick', arguments: {} })).result as { taskId: string }
    const undeclared = await raw('subscriptions/listen', { notifications: { taskIds: [taskId] } }, { tasks: false })
    expect(undeclared.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } })
    const stop = new AbortController()
    const declared = await fetch(`${server.url}/mcp`, {
      method: 'POST', signal: stop.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen', authorization: `Bearer ${agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
      } } }),
    })
    expect(declared.status).toBe(200)
    expect(declared.headers.get('content-type')).toMatch(/^text\/event-stream/)
    stop.abort()
  })

  it('an anonymous caller, who could not follow a task, is answered plainly', async () => {
    await createProfile(db, 'anyone', ['fx'], ctx)
    await updateSettings(db, { mcp_anonymous_profile: 'anyone' }, ctx)
    try {
      const r = await raw('tools/call', { name: 'fx:quick', arguments: { who: 'anon' } }, { token: null })
      expect(r.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'quick: {"who":"anon"}' }] })
    } finally {
      await updateSettings(db, { mcp_anonymous_profile: null }, ctx)
    }
  })

  it('the task\'s call is on the record as a 2025-11-25 task\'s is: task.created, then the tool.call with its task_id and its outcome', async () => {
    const c = await client()
    const modern = handleOf(await c.callTool({ name: 'fx:quick', arguments: { era: 'x' } }))!.taskId
    await settled(c, modern)
    await c.close()
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fx:quick', arguments: { era: 'x' }, task: {} } }),
    })
    const legacy = ((await res.json()) as { result: { task: { taskId: string } } }).result.task.taskId
    const created = await records('task.created')
    const calls = await records('tool.call')
    const outcomes = () => records('tool.call_outcome')
    const shape = async (taskId: string) => {
      const made = created.find((r) => r.data.task_id === taskId)!
      const call = calls.find((r) => r.data.task_id === taskId)!
      const outcome = await waitFor(`${taskId}'s outcome on the record`, async () => (await outcomes()).find((r) => r.data.call === call.id))
      const strip = (r: { id: number; request_id: string; actor: string; server: string; data: Record<string, unknown> }) => {
        const { task_id: _t, call: _c, duration_ms: _d, ...data } = r.data
        return { actor: r.actor, server: r.server, data }
      }
      // one request made the task and its call
      expect(call.request_id).toBe(made.request_id)
      return { made: strip(made), call: strip(call), outcome: strip(outcome) }
    }
    const m = await shape(modern)
    expect(m.call.data).toMatchObject({ target: 'fx:quick' })
    expect(m.outcome.data).toMatchObject({ outcome: 'ok' })
    expect(m).toEqual(await shape(legacy))
  })
})
