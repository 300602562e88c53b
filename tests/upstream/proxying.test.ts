import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { readLogs } from '@/db/queries/upstream'
import { serverConfig, serverState } from '@/db/queries/servers'
import type { ActivityRecord } from '@/lib/core/activity'
import { operatorSessionHeaders } from '@/tests/helpers/session'
import { addServer } from '@/lib/admin/upstreams'
import { quarantineServer, unquarantineServer } from '@/lib/admin/servers'
import { createAgentToken } from '@/lib/admin/tokens'
import { createProfile } from '@/lib/admin/profiles'
import { updateSettings } from '@/lib/admin/settings'
import { runCli } from '@/tests/helpers/cli'
import { rpcBody } from '@/tests/helpers/rpc'
import { startGateway } from '@/tests/helpers/gateway'
import { freePort, type RunningServer } from '@/tests/helpers/server'
import { FIXTURE, connectionState, everything, everythingOverHttp, stdioFixture, waitFor } from './harness'

// Transparent proxying: a real third-party server (server-everything) and the project's own
// fixture behave through toolgate as they do directly — listings, progress, resources and
// prompts, timeouts, cancellation, health and the spec's error codes.

const KEY = 'tg_op_proxying_test_key_00000000'
const ctx = { actor: 'test' }

let db: Db
let dbFile: string
let server: RunningServer
let agent: string
const spawned: ChildProcess[] = []

beforeAll(async () => {
  ;({ db, dbFile, server, agent } = await startGateway(KEY, { upstreams: { everything: everything('stdio') } }))
})
afterAll(async () => {
  await server?.stop()
  for (const p of spawned) p.kill()
})

const legacy = async (token = agent) => {
  const c = new LegacyClient({ name: 'proxying-test', version: '1' })
  await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return c
}
const modern = async () => {
  const c = new Client({ name: 'proxying-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
  return c
}
async function rpc(body: unknown, accept = 'application/json, text/event-stream', token = agent) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept, 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${token}` }, body: JSON.stringify(body),
  })
  return { status: res.status, body: await rpcBody(res) }
}
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text

describe('server-everything through toolgate', () => {
  it('serves the same tool definitions as the server lists directly (with the same client capabilities)', async () => {
    const direct = new LegacyClient({ name: 'direct', version: '1' }, { capabilities: { roots: { listChanged: false }, elicitation: { form: {}, url: {} }, sampling: {} } })
    await direct.connect(new StdioClientTransport({ ...everything('stdio'), stderr: 'ignore' }))
    const own = (await direct.request({ method: 'tools/list', params: {} }, z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })) }))).tools
    await direct.close()
    const served = ((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result!.tools as { name: string }[])
      .filter((t) => t.name.startsWith('everything:'))
    expect(served.map((t) => t.name).sort()).toEqual(own.map((t) => `everything:${t.name}`).sort())
    for (const t of own) expect({ ...served.find((s) => s.name === `everything:${t.name}`), name: t.name }, t.name).toEqual(t)
    // shown only to clients that declare roots, elicitation (URL mode for the URL one) and sampling
    expect(own.map((t) => t.name)).toEqual(expect.arrayContaining(['get-roots-list', 'trigger-elicitation-request', 'trigger-url-elicitation', 'trigger-sampling-request']))
  })

  it('forwards progress as it happens, on 2025-11-25 and on 2026-07-28', async () => {
    const args = { duration: 2, steps: 4 }
    const seen: number[] = []
    const c1 = await legacy()
    const r1 = await c1.request({ method: 'tools/call', params: { name: 'everything:trigger-long-running-operation', arguments: args } }, CallToolResultSchema, { onprogress: (p) => seen.push(p.progress) })
    await c1.close()
    expect(text(r1)).toContain('Long running operation completed')
    expect(seen).toEqual([1, 2, 3, 4])

    const modernSeen: number[] = []
    const c2 = await modern()
    const r2 = await c2.callTool({ name: 'everything:trigger-long-running-operation', arguments: args }, { onprogress: (p) => modernSeen.push(p.progress) })
    await c2.close()
    expect(text(r2 as CallToolResult)).toContain('Long running operation completed')
    expect(modernSeen).toEqual([1, 2, 3, 4])
  })

  it('a 2025-11-25 call streams (SSE) only once it has something to send before its result; otherwise one JSON body', async () => {
    const call = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => fetch(`${server.url}/mcp`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } }),
    })
    const plain = await call(1, 'everything:echo', { message: 'hi' })
    expect(plain.headers.get('content-type')).toBe('application/json')
    const raw = await plain.text()
    expect(Number(plain.headers.get('content-length'))).toBe(Buffer.byteLength(raw))
    expect(JSON.parse(raw)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'Echo: hi' }] } })

    const progressed = await call(2, 'everything:trigger-long-running-operation', { duration: 1, steps: 2 }, { progressToken: 'p' })
    expect(progressed.headers.get('content-type')).toBe('text/event-stream')
    const events = (await progressed.text()).split('\n\n').filter((e) => e.startsWith('event: message')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)))
    // everything also logs a message during the call: it streams too, in order, before the result
    expect(events.map((e) => e.method ?? `result ${e.id}`).filter((m) => m !== 'notifications/message')).toEqual(['notifications/progress', 'notifications/progress', 'result 2'])
  })

  it('aggregates resources and prompts; resource URIs are the server\'s own, and a resource_link a tool returns reads back through toolgate', async () => {
    const c = await legacy()
    const links = await c.callTool({ name: 'everything:get-resource-links', arguments: { count: 2 } }) as CallToolResult
    const link = links.content.find((x) => x.type === 'resource_link') as { uri: string }
    // as the server gave it: the same URI in content as in its text and in a direct session
    expect(link.uri).toMatch(/^demo:\/\/resource\/dynamic\//)
    const read = await c.readResource({ uri: link.uri })
    expect(read.contents[0].uri).toBe(link.uri)
    // the namespaced form (what two servers listing one URI get) reads the same resource, under that name
    expect((await c.readResource({ uri: `toolgate://everything/${link.uri}` })).contents[0].uri).toBe(`toolgate://everything/${link.uri}`)
    const listed = (await c.listResources()).resources.map((r) => r.uri)
    expect(listed.length).toBeGreaterThan(0)
    expect(listed.every((u) => u.startsWith('demo://'))).toBe(true)
    expect((await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}')
    // a URI no server has: not found, naming the URI as asked (data.uri)
    const missing = await rpc({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'demo://resource/no-such-thing' } })
    expect((missing.body.error as { data?: { uri?: string } } | undefined)?.data?.uri).toBe('demo://resource/no-such-thing')
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toContain('everything:args-prompt')
    const prompt = await c.getPrompt({ name: 'everything:args-prompt', arguments: { city: 'Paris' } })
    expect(JSON.stringify(prompt.messages)).toContain('Paris')
    expect(c.getInstructions()).toContain('[everything]')
    await c.close()
  })

  it('serves no resources or prompts of a server outside the token scope, or quarantined', async () => {
    const narrow = (await createAgentToken(db, 'narrow', { allowedServers: ['nothing-here'], profilePin: null }, ctx)).token
    const c = await legacy(narrow)
    expect((await c.listResources()).resources).toEqual([])
    expect((await c.listPrompts()).prompts).toEqual([])
    await expect(c.readResource({ uri: 'toolgate://everything/demo://resource/dynamic/text/1' })).rejects.toThrow(/not found/i)
    await expect(c.getPrompt({ name: 'everything:simple-prompt' })).rejects.toThrow(/Unknown prompt/)
    await c.close()
    await quarantineServer(db, 'everything', ctx)
    const all = await legacy()
    await waitFor('everything withdrawn', async () => (await all.listPrompts()).prompts.length === 0)
    await all.close()
    await unquarantineServer(db, 'everything', ctx)
    await waitFor('everything back', () => connectionState(db, 'everything')?.state === 'ready')
  })
})

describe('calls: timeouts, cancellation', () => {
  const fx = stdioFixture({
    tools: [{ name: 'slow', sleepMs: 3_000 }, { name: 'chatty', sleepMs: 3_000, progressEveryMs: 400 }, { name: 'forever', sleepMs: 60_000 }, { name: 'late', sleepMs: 14_000 }],
    resources: [{ uri: 'slow://forever', name: 'forever', text: 'never read to the end', sleepMs: 60_000 }],
  })
  beforeAll(async () => {
    await addServer(db, { name: 'work', transport: fx.transport, trusted: true }, ctx)
    await waitFor('work ready', () => connectionState(db, 'work')?.state === 'ready')
    const set = await runCli(['upstream', 'set', 'work', '--call-timeout', '2s', '--db', dbFile])
    expect(set.code, set.stderr).toBe(0)
  }, 30_000)

  it('a call past the server call timeout says which timeout and how to raise it; progress restarts the clock', async () => {
    const c = await legacy()
    const slow = await c.callTool({ name: 'work:slow', arguments: {} }) as CallToolResult
    expect(slow.isError).toBe(true)
    expect(text(slow)).toMatch(/timed out after 2 s .*call timeout.*toolgate upstream set work --call-timeout/)
    // 3 s of work, reporting progress: the 2 s timeout never runs out
    const chatty = await c.request({ method: 'tools/call', params: { name: 'work:chatty', arguments: {} } }, CallToolResultSchema, { onprogress: () => undefined, timeout: 30_000 })
    expect(chatty.isError).toBeFalsy()
    await c.close()
  })

  it('a client that cancels cancels the upstream call', async () => {
    await runCli(['upstream', 'set', 'work', '--call-timeout', '10m', '--db', dbFile])
    const c = await legacy()
    const abort = new AbortController()
    const call = c.request({ method: 'tools/call', params: { name: 'work:forever', arguments: {} } }, CallToolResultSchema, { signal: abort.signal })
    await waitFor('the call reached the upstream', () => fx.calls().some((x) => x.name === 'forever'))
    abort.abort()
    await expect(call).rejects.toThrow()
    await waitFor('the upstream saw the cancellation', () => fx.calls().some((x) => x.name === 'forever' && x.cancelled))
    await c.close()
  })

  it('a client that leaves a resource read cancels it upstream too', async () => {
    const abort = new AbortController()
    const read = fetch(`${server.url}/mcp`, {
      method: 'POST', signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'slow://forever' } }),
    })
    read.catch(() => undefined)
    await waitFor('the read reached the upstream', () => fx.calls().some((x) => x.name === 'slow://forever'))
    abort.abort()
    const cancelled = await waitFor('the upstream saw the cancellation', () => fx.calls().find((x) => x.name === 'slow://forever' && x.cancelled))
    // because the caller left, not because toolgate's request timeout ran out later
    expect(String(cancelled.reason)).not.toMatch(/timed out/i)
  })

  it('a 2025-11-25 call with nothing to send streams after 10 s, so its keep-alives can reach the client; leaving it still cancels upstream', async () => {
    await runCli(['upstream', 'set', 'work', '--call-timeout', '10m', '--db', dbFile])
    const before = fx.calls().filter((x) => x.name === 'forever' && x.cancelled).length
    const abort = new AbortController()
    const started = Date.now()
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST', signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'work:forever', arguments: {} } }),
    })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900)
    abort.abort()
    await waitFor('the upstream saw the cancellation', () => fx.calls().filter((x) => x.name === 'forever' && x.cancelled).length > before)
  }, 60_000)
  it('a 2026-07-28 call with nothing to send streams after 10 s too: its result arrives on the stream, and leaving it still cancels upstream', async () => {
    await runCli(['upstream', 'set', 'work', '--call-timeout', '10m', '--db', dbFile])
    // what the client's transport saw of each tools/call: the answer's kind, and when its headers came
    const seen: { contentType: string | null; afterMs: number }[] = []
    let started = 0
    const watched: typeof fetch = async (input, init) => {
      const res = await fetch(input, init)
      if (String(init?.body ?? '').includes('"tools/call"')) seen.push({ contentType: res.headers.get('content-type'), afterMs: Date.now() - started })
      return res
    }
    const c = new Client({ name: 'proxying-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { fetch: watched, requestInit: { headers: { authorization: `Bearer ${agent}` } } }))

    // 14 s of work that sends nothing: the headers come at 10 s as a stream, the result on it at 14 s
    started = Date.now()
    const late = await c.callTool({ name: 'work:late', arguments: {} }, { timeout: 60_000 }) as CallToolResult
    expect(late.isError).toBeFalsy()
    expect(late.content.length).toBeGreaterThan(0)
    expect(seen).toHaveLength(1)
    expect(seen[0].contentType).toBe('text/event-stream')
    expect(seen[0].afterMs).toBeGreaterThanOrEqual(9_900)

    const before = fx.calls().filter((x) => x.name === 'forever' && x.cancelled).length
    const abort = new AbortController()
    started = Date.now()
    const forever = c.callTool({ name: 'work:forever', arguments: {} }, { signal: abort.signal, timeout: 60_000 })
    forever.catch(() => undefined)
    await waitFor('the stream opened', () => seen.length === 2)
    expect(seen[1].contentType).toBe('text/event-stream')
    abort.abort()
    await expect(forever).rejects.toThrow()
    await waitFor('the upstream saw the cancellation', () => fx.calls().filter((x) => x.name === 'forever' && x.cancelled).length > before)
    await c.close()
  }, 90_000)
})

describe('tasks', () => {
  const fx = stdioFixture({ tools: [{ name: 'forever', sleepMs: 60_000 }, { name: 'quick' }] })
  beforeAll(async () => {
    await addServer(db, { name: 'longrun', transport: fx.transport, trusted: true }, ctx)
    await waitFor('longrun ready', () => connectionState(db, 'longrun')?.state === 'ready')
  }, 30_000)
  const records = async (type: string) => JSON.parse((await runCli(['activity', 'list', '--type', type, '--limit', '100', '-o', 'json', '--db', dbFile])).stdout) as { id: number; request_id: string; data: Record<string, unknown> }[]
  const task = (r: { body: { result?: Record<string, unknown> } }) => r.body.result?.task as { taskId: string; status: string }

  it('a tool the upstream runs only as a task is callable as a plain call, on both revisions, with its stages as progress', async () => {
    const c = await legacy()
    const stages: string[] = []
    const r = await c.request({ method: 'tools/call', params: { name: 'everything:simulate-research-query', arguments: { topic: 'otters' } } }, CallToolResultSchema,
      { onprogress: (p) => void stages.push(p.message ?? ''), timeout: 60_000 })
    expect(r.isError).toBeFalsy()
    expect(text(r as CallToolResult)).toContain('# Research Report: otters')
    // toolgate polls at the upstream's own pollInterval (1 s, the same as a stage), so which stages it sees depends
    // on timing; what it relays must be the upstream's stages, in order, each once
    const order = ['Gathering sources...', 'Analyzing content...', 'Synthesizing findings...', 'Generating report...', 'completed']
    // ('completed' is told when the end comes under the stage last seen; a poll that sees both at once tells the stage)
    expect(stages.length).toBeGreaterThan(0)
    expect(stages.every((s) => order.includes(s))).toBe(true)
    const ranks = stages.map((s) => order.indexOf(s))
    expect(ranks).toEqual([...new Set(ranks)].sort((a, b) => a - b))
    // the upstream's own task id stays between toolgate and the upstream
    expect(r._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined()
    await c.close()
    const m = await modern()
    expect(text(await m.callTool({ name: 'everything:simulate-research-query', arguments: { topic: 'beavers' } }, { timeout: 60_000 }) as CallToolResult)).toContain('# Research Report: beavers')
    await m.close()
    // the official 2025-11-25 client reads taskSupport "required" from the listing and runs the call as a task by itself
    const official = await legacy()
    await official.listTools()
    const seen: string[] = []
    let final: CallToolResult | undefined
    for await (const msg of official.experimental.tasks.callToolStream({ name: 'everything:simulate-research-query', arguments: { topic: 'voles' } }, CallToolResultSchema, { timeout: 60_000 })) {
      seen.push(msg.type)
      if (msg.type === 'result') final = msg.result as CallToolResult
    }
    expect(seen[0]).toBe('taskCreated')
    expect(seen).toContain('taskStatus')
    expect(text(final!)).toContain('# Research Report: voles')
    await official.close()
  })

  it('a task-augmented call runs as a task its caller follows to its result; other tokens cannot see it; created and ended on the record', async () => {
    const init = await rpc({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })
    expect(init.body.result?.capabilities).toMatchObject({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } })
    const created = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'everything:simulate-research-query', arguments: { topic: 'moles' }, task: { ttl: 60_000 } } })
    const { taskId, status } = task(created)
    expect(taskId).toMatch(/^tgt_/)
    expect(status).toBe('working')
    expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } })).body.result).toMatchObject({ taskId, status: 'working', ttl: 60_000 })
    expect(((await rpc({ jsonrpc: '2.0', id: 3, method: 'tasks/list' })).body.result?.tasks as { taskId: string }[]).map((t) => t.taskId)).toContain(taskId)

    const other = (await createAgentToken(db, 'other-tasks', { allowedServers: ['*'], profilePin: null }, ctx)).token
    const foreign = await rpc({ jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { taskId } }, undefined, other)
    expect(foreign.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('unknown task') })
    expect((await rpc({ jsonrpc: '2.0', id: 5, method: 'tasks/result', params: { taskId } }, undefined, other)).body.error?.code).toBe(-32602)
    expect((await rpc({ jsonrpc: '2.0', id: 6, method: 'tasks/list' }, undefined, other)).body.result?.tasks).toEqual([])

    // tasks/result waits for the end
    const result = (await rpc({ jsonrpc: '2.0', id: 7, method: 'tasks/result', params: { taskId } })).body.result as CallToolResult
    expect(text(result)).toContain('# Research Report: moles')
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId })
    expect((await rpc({ jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { taskId } })).body.result).toMatchObject({ status: 'completed' })

    expect((await records('task.created')).find((r) => r.data.task_id === taskId)).toMatchObject({ data: { target: 'everything:simulate-research-query', ttl_ms: 60_000 } })
    const callOf = (await records('tool.call')).find((r) => r.data.task_id === taskId)
    expect(callOf).toBeDefined()
    await waitFor('the call\'s outcome on the record', async () => (await records('tool.call_outcome')).find((r) => r.data.call === callOf!.id && r.data.outcome === 'ok'))
  })

  it('tasks/cancel cancels the upstream call; a finished task cannot be cancelled; refused calls are refused at creation', async () => {
    const created = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'longrun:forever', arguments: {}, task: {} } })
    const { taskId } = task(created)
    await waitFor('the call reached the upstream', () => fx.calls().some((x) => x.name === 'forever'))
    expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'tasks/cancel', params: { taskId } })).body.result).toMatchObject({ taskId, status: 'cancelled' })
    await waitFor('the upstream saw the cancellation', () => fx.calls().some((x) => x.name === 'forever' && x.cancelled))
    const again = await rpc({ jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { taskId } })
    expect(again.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('already cancelled') })
    expect((await records('task.cancelled')).find((r) => r.data.task_id === taskId)).toMatchObject({ data: { target: 'longrun:forever' } })

    // the gate applies at creation: an unknown tool is -32602, a blocked one is refused as a plain call would be
    const unknown = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'longrun:nope', arguments: {}, task: {} } })
    expect(unknown.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') })
    expect((await runCli(['tools', 'block', 'longrun:quick', '--db', dbFile])).code).toBe(0)
    const refused = await rpc({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'longrun:quick', arguments: {}, task: {} } })
    expect(refused.body.result).toMatchObject({ isError: true, _meta: { 'app.mcpproxy/required-tools': { reason: 'tool_blocked_by_user' } } })
    expect(refused.body.result?.task).toBeUndefined()
  })
})

describe('elicitations and log messages during a call', () => {
  const fx = stdioFixture({ tools: [{ name: 'talky', logs: ['reading the input', 'writing the answer'] }, { name: 'sampler', sample: true }] })
  beforeAll(async () => {
    await addServer(db, { name: 'talk', transport: fx.transport, trusted: true }, ctx)
    await waitFor('talk ready', () => connectionState(db, 'talk')?.state === 'ready')
  }, 30_000)
  const allText = (r: CallToolResult) => r.content.map((c) => (c as { text?: string }).text ?? '').join('\n')
  const ELICIT = 'everything:trigger-elicitation-request'

  it('an upstream elicitation reaches the caller and its answer reaches the upstream, on 2025-11-25 and on 2026-07-28', async () => {
    const asked: string[] = []
    const c = new LegacyClient({ name: 'elicit-test', version: '1' }, { capabilities: { elicitation: { form: {} } } })
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message)
      return { action: 'accept', content: { name: 'Ada Lovelace' } }
    })
    await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    const r = await c.callTool({ name: ELICIT, arguments: {} }) as CallToolResult
    expect(asked).toEqual(['Please provide inputs for the following fields:'])
    expect(allText(r)).toContain('Ada Lovelace')
    await c.close()

    const m = new Client({ name: 'elicit-test', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
    m.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params.message)
      return { action: 'accept', content: { name: 'Grace Hopper' } }
    })
    await m.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    expect(allText(await m.callTool({ name: ELICIT, arguments: {} }) as CallToolResult)).toContain('Grace Hopper')
    expect(asked).toHaveLength(2)
    await m.close()
  })

  it('a sampling server-everything asks during a call reaches the caller\'s model, and its answer reaches the upstream, on 2025-11-25 and on 2026-07-28', async () => {
    const asked: string[] = []
    const reply = (text: string) => ({ role: 'assistant' as const, content: { type: 'text' as const, text }, model: 'agent-model' })
    const c = new LegacyClient({ name: 'sample-test', version: '1' }, { capabilities: { sampling: {} } })
    c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked.push((req.params.messages[0].content as { text: string }).text)
      return reply('forty-two')
    })
    await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    expect(allText(await c.callTool({ name: 'everything:trigger-sampling-request', arguments: { prompt: 'the answer?' } }) as CallToolResult)).toContain('forty-two')
    await c.close()

    const m = new Client({ name: 'sample-test', version: '1' }, { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
    m.setRequestHandler('sampling/createMessage', async (req) => {
      asked.push((req.params.messages[0].content as { text: string }).text)
      return reply('forty-three')
    })
    await m.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    expect(allText(await m.callTool({ name: 'everything:trigger-sampling-request', arguments: { prompt: 'and now?' } }) as CallToolResult)).toContain('forty-three')
    await m.close()
    // what the server sent, as it sent it
    expect(asked).toEqual(['Resource trigger-sampling-request context: the answer?', 'Resource trigger-sampling-request context: and now?'])
  })

  it('server-everything over Streamable HTTP: calls, progress and elicitations pass through the same way', async () => {
    spawned.push(await everythingOverHttp(db, 'evhttp'))
    const c = new LegacyClient({ name: 'elicit-test', version: '1' }, { capabilities: { elicitation: { form: {} } } })
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Katherine Johnson' } }))
    await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    expect(text(await c.callTool({ name: 'evhttp:echo', arguments: { message: 'over http' } }) as CallToolResult)).toBe('Echo: over http')
    const seen: number[] = []
    await c.request({ method: 'tools/call', params: { name: 'evhttp:trigger-long-running-operation', arguments: { duration: 1, steps: 3 } } }, CallToolResultSchema, { onprogress: (p) => void seen.push(p.progress) })
    expect(seen).toEqual([1, 2, 3])
    expect(allText(await c.callTool({ name: 'evhttp:trigger-elicitation-request', arguments: {} }) as CallToolResult)).toContain('Katherine Johnson')
    await c.close()
  })

  it('a question takes the time a person needs: the call timeout stops while the caller answers', async () => {
    expect((await runCli(['upstream', 'set', 'everything', '--call-timeout', '1s', '--db', dbFile])).code).toBe(0)
    try {
      const c = new LegacyClient({ name: 'elicit-test', version: '1' }, { capabilities: { elicitation: { form: {} } } })
      c.setRequestHandler(ElicitRequestSchema, async () => {
        await new Promise((r) => setTimeout(r, 1_500)) // longer than the server's 1 s call timeout
        return { action: 'accept', content: { name: 'Dorothy Vaughan' } }
      })
      await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
      expect(allText(await c.callTool({ name: ELICIT, arguments: {} }) as CallToolResult)).toContain('Dorothy Vaughan')
      await c.close()
    } finally {
      await runCli(['upstream', 'set', 'everything', '--call-timeout', '10m', '--db', dbFile])
    }
  })

  it('a task the upstream runs asks its question through toolgate too (input_required), and uses the answer', async () => {
    const c = new LegacyClient({ name: 'elicit-test', version: '1' }, { capabilities: { elicitation: { form: {} } } })
    const asked: string[] = []
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message)
      return { action: 'accept', content: { interpretation: 'the river mammal' } }
    })
    await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    const r = await c.callTool({ name: 'everything:simulate-research-query', arguments: { topic: 'otters', ambiguous: true } }, undefined, { timeout: 60_000 }) as CallToolResult
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain('otters')
    expect(text(r)).toContain('the river mammal')
    await c.close()
  })

  it('a client that cannot answer gets the elicitation declined for it, and the call still ends', async () => {
    const plain = await legacy() // declares no elicitation: its SDK answers the request "method not found"
    expect(allText(await plain.callTool({ name: ELICIT, arguments: {} }) as CallToolResult)).toMatch(/declined/i)
    await plain.close()
    const m = await modern() // no elicitation in its request capabilities: never asked
    expect(allText(await m.callTool({ name: ELICIT, arguments: {} }) as CallToolResult)).toMatch(/declined/i)
    await m.close()
    // the retry of a modern call is the caller's alone: another caller's requestState is unknown
    const stray = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${agent}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': ELICIT },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: ELICIT, arguments: {}, requestState: 'tgc_made_up', inputResponses: {},
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } } } }),
    })
    expect(JSON.stringify(await stray.json())).toMatch(/Invalid or expired requestState/)
  })

  it('an anonymous caller is never asked (its answer could not be told from another anonymous caller\'s): the elicitation is declined for it', async () => {
    await createProfile(db, 'anon-everything', ['everything'], ctx)
    await updateSettings(db, { mcp_anonymous_profile: 'anon-everything' }, ctx)
    try {
      const asked: string[] = []
      const c = new LegacyClient({ name: 'elicit-test', version: '1' }, { capabilities: { elicitation: { form: {} } } })
      c.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message)
        return { action: 'accept', content: { name: 'Ada Lovelace' } }
      })
      await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`))) // no token: a loopback caller under the anonymous profile
      expect(allText(await c.callTool({ name: ELICIT, arguments: {} }) as CallToolResult)).toMatch(/declined/i)
      expect(asked).toEqual([])
      await c.close()
    } finally {
      await updateSettings(db, { mcp_anonymous_profile: null }, ctx)
    }
  })

  /**
   * What was asked during the newest call of `target` (its tool.call record commits before its
   * answer), under that call's request id, once it is on the record (appended without holding the answer).
   */
  const askedInCallOf = async (target: string) => {
    const call = listActivity(db, { type: 'tool.call', limit: 50 }).find((r) => r.type === 'tool.call' && r.data.target === target)!
    const [asked] = await waitFor(`what ${target} asked on the record`, () => {
      const found = listActivity(db, { requestId: call.requestId, type: 'server.asked' }) as Extract<ActivityRecord, { type: 'server.asked' }>[]
      return found.length ? found : undefined
    })
    return asked
  }
  /** A 2025-11-25 agent that answers samplings with "forty-two" and elicitations with Ada Lovelace, noting each sampling it is asked. */
  const answeringAgent = async (sampled: string[]) => {
    const c = new LegacyClient({ name: 'asks-test', version: '1' }, { capabilities: { sampling: {}, elicitation: { form: {} } } })
    c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      sampled.push((req.params.messages[0].content as { text: string }).text)
      return { role: 'assistant' as const, content: { type: 'text' as const, text: 'forty-two' }, model: 'agent-model' }
    })
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada Lovelace' } }))
    await c.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }))
    return c
  }
  /** A server's connection, reconnected (ready again) after `since`: what a sampling change does. */
  const reconnected = (name: string, since: number) => waitFor(`${name} reconnected`, () => {
    const s = serverState(db, name)
    return s?.connection?.state === 'ready' && (s.connectionAt ?? 0) > since
  }).catch((e) => { console.log(readLogs(db, name, 30).map((l) => l.line).join('\n')); throw e })

  it('what an upstream asks is on the record under its call\'s request id, as its kind and outcome only (never the question or the answer)', async () => {
    const sampled: string[] = []
    const c = await answeringAgent(sampled)
    expect(text(await c.callTool({ name: 'talk:sampler', arguments: {} }) as CallToolResult)).toBe('sampled: forty-two')
    const sampling = await askedInCallOf('talk:sampler')
    expect(allText(await c.callTool({ name: ELICIT, arguments: {} }) as CallToolResult)).toContain('Ada Lovelace')
    const elicited = await askedInCallOf(ELICIT)
    await c.close()
    expect(sampled).toEqual(['SECRET-PROMPT: what is six times seven?'])

    expect(sampling).toMatchObject({ actor: 'token:upstream-tests', tier: 'agent', server: 'talk', data: { target: 'talk:sampler', ask: 'sampling', asked: true, outcome: 'answered' } })
    expect(elicited).toMatchObject({ actor: 'token:upstream-tests', server: 'everything', data: { target: ELICIT, ask: 'elicitation', mode: 'form', asked: true, outcome: 'accepted' } })
    // upstream- and user-written: none of it on the record
    expect(JSON.stringify([sampling, elicited])).not.toMatch(/SECRET-PROMPT|forty-two|Ada Lovelace|Please provide/)
    // the Activity page and `activity list` say it in a sentence
    const listed = JSON.parse((await runCli(['activity', 'list', '--type', 'server.asked', '--request-id', sampling.requestId, '-o', 'json', '--db', dbFile])).stdout) as { summary: string }[]
    expect(listed.map((r) => r.summary)).toEqual(['talk asked the caller (sampling): answered'])
  })

  it('sampling withheld from a server (CLI): its request is refused unasked and on the record, and sampling is no longer declared to it; a bad value changes nothing', async () => {
    const configured = () => listActivity(db, { type: 'server.configured', server: 'talk', limit: 100 }).length
    const before = configured()
    const bad = await runCli(['upstream', 'set', 'talk', '--sampling', 'sometimes', '--db', dbFile])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('sampling: must be relay or withhold')
    expect(serverConfig(db, 'talk')?.sampling).toBe('relay')
    expect(configured()).toBe(before)

    let since = Date.now()
    const set = await runCli(['upstream', 'set', 'talk', '--sampling', 'withhold', '-o', 'json', '--db', dbFile])
    expect(set.code).toBe(0)
    const out = JSON.parse(set.stdout)
    expect([out.before.sampling, out.after.sampling]).toEqual(['relay', 'withhold'])
    // the change and its record, one transaction
    expect(listActivity(db, { requestId: out.request_id })).toMatchObject([{ type: 'server.configured', data: { after: { sampling: 'withhold' } } }])
    await reconnected('talk', since)
    try {
      const sampled: string[] = []
      const c = await answeringAgent(sampled)
      // the fixture asks all the same: toolgate refuses it, and the agent's model is never asked
      expect(text(await c.callTool({ name: 'talk:sampler', arguments: {} }) as CallToolResult)).toMatch(/^not sampled: .*the operator withholds sampling from this server/)
      await c.close()
      expect(sampled).toEqual([])
      expect((await askedInCallOf('talk:sampler')).data).toEqual({ target: 'talk:sampler', ask: 'sampling', asked: false, outcome: 'withheld' })

      // not declared: server-everything offers its sampling tool only to clients that declare sampling
      const served = async () => ((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result!.tools as { name: string }[]).map((t) => t.name)
      expect(await served()).toContain('everything:trigger-sampling-request')
      since = Date.now()
      expect((await runCli(['upstream', 'set', 'everything', '--sampling', 'withhold', '--db', dbFile])).code).toBe(0)
      await reconnected('everything', since)
      await waitFor('its sampling tool gone', async () => !(await served()).includes('everything:trigger-sampling-request'))
      since = Date.now()
      expect((await runCli(['upstream', 'set', 'everything', '--sampling', 'relay', '--db', dbFile])).code).toBe(0)
      await reconnected('everything', since)
      await waitFor('its sampling tool back', async () => (await served()).includes('everything:trigger-sampling-request'))
    } finally {
      since = Date.now()
      await runCli(['upstream', 'set', 'talk', '--sampling', 'relay', '--db', dbFile])
      await runCli(['upstream', 'set', 'everything', '--sampling', 'relay', '--db', dbFile])
      await reconnected('talk', since)
    }
  })

  it('the server page\'s settings action sets sampling too, on the record; a bad value is refused naming the field, nothing changed', async () => {
    const manifest = JSON.parse(readFileSync(path.join(process.cwd(), process.env.NEXT_DIST_DIR || '.next', 'server', 'server-reference-manifest.json'), 'utf8')).node as Record<string, { exportedName: string }>
    const id = Object.entries(manifest).find(([, v]) => v.exportedName === 'saveServerSettings')![0]
    const session = await operatorSessionHeaders(db, 'approver', 'asks-approver')
    const save = async (sampling: string) => (await fetch(`${server.url}/servers/talk`, {
      method: 'POST', headers: { ...session, 'next-action': id, accept: 'text/x-component', 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify([{ server: 'talk', settings: { disabledTools: [], enabledTools: null, trust: 'manual', callTimeoutMs: 600_000, roots: [], isolation: 'auto', sampling } }]),
    })).text()
    const configured = () => listActivity(db, { type: 'server.configured', server: 'talk', limit: 100 })
    const before = configured().length
    expect(await save('sometimes')).toContain('Invalid input: settings.sampling: must be relay or withhold')
    expect(serverConfig(db, 'talk')?.sampling).toBe('relay')
    expect(configured()).toHaveLength(before)
    const since = Date.now()
    try {
      expect(await save('withhold')).toContain('"ok":true')
      expect(serverConfig(db, 'talk')?.sampling).toBe('withhold')
      const [record] = configured()
      expect(record).toMatchObject({ actor: 'asks-approver', data: { before: { sampling: 'relay' }, after: { sampling: 'withhold' } } })
      await reconnected('talk', since)
    } finally {
      const back = Date.now()
      await runCli(['upstream', 'set', 'talk', '--sampling', 'relay', '--db', dbFile])
      await reconnected('talk', back)
    }
  })

  it('log messages the upstream sends during a call reach the caller, in order, before the result, at the level the caller set', async () => {
    const c = await legacy()
    const got: unknown[] = []
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push(n.params.data))
    expect(text(await c.callTool({ name: 'talk:talky', arguments: {} }) as CallToolResult)).toBe('talky: {}')
    expect(got).toEqual(['reading the input', 'writing the answer'])
    // a level set with logging/setLevel holds for this caller's later calls: info is below warning
    await c.setLoggingLevel('warning')
    await c.callTool({ name: 'talk:talky', arguments: {} })
    expect(got).toHaveLength(2)
    await c.close()
  })
})

describe('health that tracks reality', () => {
  it('a killed HTTP upstream reads unhealthy within about 2 s, says why, and is ready again once it is back', async () => {
    const fx = stdioFixture({ tools: [{ name: 't' }] })
    const port = await freePort()
    const start = () => {
      const p = spawn(process.execPath, [FIXTURE], { env: { ...process.env, ...fx.httpEnv(port) }, stdio: 'ignore' })
      spawned.push(p)
      return p
    }
    let upstream = start()
    await waitFor('fixture listening', () => fetch(`http://127.0.0.1:${port}/mcp`).then(() => true, () => false))
    await addServer(db, { name: 'remote', transport: { url: `http://127.0.0.1:${port}/mcp` }, trusted: true }, ctx)
    await waitFor('remote ready', () => connectionState(db, 'remote')?.state === 'ready')
    upstream.kill('SIGKILL')
    await waitFor('remote unhealthy', () => connectionState(db, 'remote')?.state !== 'ready', 3_000)
    await waitFor('the reason named', () => /ECONNREFUSED|refused/.test(connectionState(db, 'remote')?.detail ?? ''), 5_000)
    upstream = start()
    await waitFor('remote ready again', () => connectionState(db, 'remote')?.state === 'ready', 10_000)
  })
})

describe('spec errors', () => {
  it('-32600 for a batch, -32602 for a non-string cursor and for an unknown tool', async () => {
    const batch = await rpc([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }])
    expect(batch.status).toBe(400)
    expect(batch.body.error?.code).toBe(-32600)
    const cursor = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 5 } })
    expect(cursor.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('cursor must be a string') })
    const unknown = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'everything:no-such-tool', arguments: {} } })
    expect(unknown.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') })
  })
})

describe('import', () => {
  it('an "sse" entry connects over HTTP+SSE, a "cwd" entry starts where it says, and a bad entry is reported by name while the others import', async () => {
    const port = await freePort()
    const sse = spawn(everything('sse').command, everything('sse').args, { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' })
    spawned.push(sse)
    await waitFor('everything (sse) listening', () => fetch(`http://127.0.0.1:${port}/sse`, { signal: AbortSignal.timeout(500) }).then(() => true, () => false))
    const fx = stdioFixture({ tools: [{ name: 'here' }] })
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-import-'))
    const file = path.join(dir, 'mcp.json')
    writeFileSync(file, JSON.stringify({ mcpServers: {
      viasse: { type: 'sse', url: `http://127.0.0.1:${port}/sse` },
      // a relative script: found only if cwd is honoured
      incwd: { command: process.execPath, args: ['upstream-server.mjs'], cwd: path.dirname(FIXTURE), env: fx.transport.env },
      'bad name': { command: 'node' },
      broken: { url: 'not a url' },
    } }))
    const r = await runCli(['upstream', 'import', file, '--trusted', '--db', dbFile])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('imported 2 servers: viasse, incwd')
    expect(r.stderr).toMatch(/not imported: bad name:/)
    expect(r.stderr).toMatch(/not imported: broken:/)
    await waitFor('viasse ready', () => connectionState(db, 'viasse')?.state === 'ready', 20_000)
    await waitFor('incwd ready', () => connectionState(db, 'incwd')?.state === 'ready', 20_000)
    const c = await legacy()
    expect(text(await c.callTool({ name: 'viasse:echo', arguments: { message: 'over sse' } }) as CallToolResult)).toContain('over sse')
    expect(text(await c.callTool({ name: 'incwd:here', arguments: {} }) as CallToolResult)).toBe('here: {}')
    await c.close()
  })
})
