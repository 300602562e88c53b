import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { readLogs } from '@/db/queries/upstream'
import { listActivity } from '@/db/queries/activity'
import { serverState } from '@/db/queries/servers'
import type { ActivityRecord } from '@/lib/core/activity'
import { operatorSessionHeaders } from '@/tests/helpers/session'
import { addServer } from '@/lib/admin/upstreams'
import { runCli } from '@/tests/helpers/cli'
import { startGateway, type Gateway } from '@/tests/helpers/gateway'
import { freePort } from '@/tests/helpers/server'
import { connectionState, everythingOverHttp, FIXTURE, stdioFixture, waitFor } from './harness'

// Upstreams spoken to at 2026-07-28 when they offer it (server/discover, falling back to
// initialize): a real v2-SDK server that offers more at 2026-07-28 than at 2025-11-25, and asks
// its caller through input_required; server-everything (2025-11-25 only) still connects.

const KEY = 'tg_op_modern_upstream_test_key_000'
const MODERN_FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'modern-upstream.mjs')
/** what the fixture lists at 2026-07-28, sorted */
const MODERN_TOOLS = ['ask', 'both', 'bump', 'grow', 'level', 'modern-only', 'task-only']

let g: Gateway
const spawned: ChildProcess[] = []

/** The modern fixture on a free loopback port, once it answers. */
async function modernUpstream(): Promise<string> {
  return (await modernProcess()).url
}

/** The same, with its process (a test that kills it), on `port` if given. */
async function modernProcess(port?: number): Promise<{ url: string; child: ChildProcess; port: number }> {
  port ??= await freePort()
  const child = spawn(process.execPath, [MODERN_FIXTURE], { env: { ...process.env, FIXTURE_PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] })
  spawned.push(child)
  const url = `http://127.0.0.1:${port}/mcp`
  await waitFor('the modern fixture listening', () => fetch(url, { signal: AbortSignal.timeout(500) }).then(() => true, () => false))
  return { url, child, port }
}

let modernUrl: string

beforeAll(async () => {
  // no periodic re-listing: a change is heard only if the server's announcement arrives
  g = await startGateway(KEY, { env: { TOOLGATE_RELIST_INTERVAL_MS: String(30 * 60_000) } })
  modernUrl = await modernUpstream()
  await addServer(g.db, { name: 'modern', transport: { url: modernUrl }, trusted: true }, { actor: 'test' })
  await waitFor('modern ready', () => connectionState(g.db, 'modern')?.state === 'ready').catch((e) => { console.log(readLogs(g.db, 'modern', 50).map((l) => l.line).join('\n')); throw e })
})
afterAll(async () => {
  await g?.server.stop()
  for (const p of spawned) p.kill()
})

const headers = () => ({ authorization: `Bearer ${g.agent}` })
/** The `ask`s `server` asked during calls since record `after`, oldest first, once `n` are there (appended without holding the answer). */
const askedSince = (server: string, after: number, n: number, ask: 'sampling' | 'elicitation') => waitFor(`${n} server.asked records of ${server}`, () => {
  const found = (listActivity(g.db, { type: 'server.asked', server, limit: 100 }) as Extract<ActivityRecord, { type: 'server.asked' }>[]).filter((r) => r.id > after && r.data.ask === ask).reverse()
  return found.length >= n ? found : undefined
})
/** The newest record's id: what comes after it is a test's own. */
const lastRecord = () => listActivity(g.db, { limit: 1 })[0]?.id ?? 0
/** The tool.call of a record's request: a question is under its call's request id. */
const callOf = (r: ActivityRecord) => listActivity(g.db, { requestId: r.requestId, type: 'tool.call' }).find((c) => c.type === 'tool.call')
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('')

/** A 2025-11-25 agent; with a name, it answers every elicitation with it, noting each message. */
async function legacyAgent(name?: string, asked: string[] = []): Promise<LegacyClient> {
  const c = new LegacyClient({ name: 'modern-test', version: '1' }, { capabilities: name ? { elicitation: { form: {} } } : {} })
  if (name) c.setRequestHandler(ElicitRequestSchema, async (req) => { asked.push(req.params.message); return { action: 'accept', content: { name } } })
  await c.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
  return c
}

/** A 2026-07-28 agent, likewise. */
async function modernAgent(name?: string, asked: string[] = []): Promise<Client> {
  const c = new Client({ name: 'modern-test', version: '1' }, { capabilities: name ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } })
  if (name) c.setRequestHandler('elicitation/create', async (req) => { asked.push(req.params.message); return { action: 'accept', content: { name } } })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
  return c
}

describe('a server offering 2026-07-28', () => {
  it('is listed as it lists itself at 2026-07-28, to agents of either revision, and stays ready', async () => {
    const legacy = new LegacyClient({ name: 'modern-test', version: '1' })
    await legacy.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    const names = (await legacy.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('modern:'))
    expect(names.sort()).toEqual(MODERN_TOOLS.map((t) => `modern:${t}`))
    expect(text(await legacy.callTool({ name: 'modern:modern-only', arguments: {} }) as CallToolResult)).toBe('modern-only at modern')
    await legacy.close()

    const modern = new Client({ name: 'modern-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect((await modern.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('modern:')).sort()).toEqual(names.sort())
    await modern.close()

    // the liveness check is one 2026-07-28 has (it has no ping): after three of them the
    // connection is still the first one
    const discovers = async () => Number(await (await fetch(new URL('/discovers', modernUrl))).text())
    const before = await discovers()
    await waitFor('three liveness checks', async () => (await discovers()) >= before + 3)
    expect(readLogs(g.db, 'modern', 200).map((l) => l.line).filter((l) => /failed|reconnecting|closed/.test(l))).toEqual([])
    expect(connectionState(g.db, 'modern')?.state).toBe('ready')
  })

  it('a tool answering input_required asks the agent (an elicitation on 2025-11-25, input_required on 2026-07-28), and the call completes with the answer', async () => {
    const asked: string[] = []
    const legacy = new LegacyClient({ name: 'modern-test', version: '1' }, { capabilities: { elicitation: { form: {} } } })
    legacy.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message)
      return { action: 'accept', content: { name: 'Ada' } }
    })
    await legacy.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await legacy.callTool({ name: 'modern:ask', arguments: {} }) as CallToolResult)).toBe('hello Ada')
    await legacy.close()

    const modern = new Client({ name: 'modern-test', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
    modern.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params.message)
      return { action: 'accept', content: { name: 'Grace' } }
    })
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await modern.callTool({ name: 'modern:ask', arguments: {} }) as CallToolResult)).toBe('hello Grace')
    // a malformed question is checked as the SDK checks one sent on its own: it never reaches the agent, the call says why
    const bad = await modern.callTool({ name: 'modern:ask', arguments: { malformed: true } }).then((r) => JSON.stringify(r), (e: Error) => e.message)
    expect(bad).toMatch(/the upstream asked an elicitation toolgate does not pass on: (requestedSchema|message)/)
    // roots are answered by toolgate (the server's configured roots: none here)
    expect(text(await modern.callTool({ name: 'modern:ask', arguments: { roots: true } }) as CallToolResult)).toBe('roots: []')
    // a sampling, put to an agent whose client declares no sampling: the upstream is refused, and the agent told why
    const unsampled = await modern.callTool({ name: 'modern:ask', arguments: { sample: true } }).then((r) => JSON.stringify(r), (e: Error) => e.message)
    expect(unsampled).toContain('toolgate has no caller to put this sampling request to: the caller\'s client does not declare sampling')
    await modern.close()
    expect(asked).toEqual(['Your name?', 'Your name?'])

    // a client that cannot answer: the upstream hears "decline", and says so
    const mute = new LegacyClient({ name: 'modern-test', version: '1' })
    await mute.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await mute.callTool({ name: 'modern:ask', arguments: {} }) as CallToolResult)).toBe('hello (decline)')
    await mute.close()
  })

  it('a sampling the server asks during a call is put to the agent\'s own model (input_required on 2026-07-28, a request on the call\'s stream on 2025-11-25), and the call completes with what it said', async () => {
    const from = lastRecord()
    const prompts: string[] = []
    const reply = (text: string) => ({ role: 'assistant' as const, content: { type: 'text' as const, text }, model: 'agent-model' })
    const modern = new Client({ name: 'modern-test', version: '1' }, { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
    modern.setRequestHandler('sampling/createMessage', async (req) => {
      prompts.push(JSON.stringify(req.params.messages))
      return reply('hello from the 2026 model')
    })
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await modern.callTool({ name: 'modern:ask', arguments: { sample: true } }) as CallToolResult)).toBe('sampled: hello from the 2026 model')
    await modern.close()

    const legacy = new LegacyClient({ name: 'modern-test', version: '1' }, { capabilities: { sampling: {} } })
    legacy.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      prompts.push(JSON.stringify(req.params.messages))
      return reply('hello from the 2025 model')
    })
    await legacy.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await legacy.callTool({ name: 'modern:ask', arguments: { sample: true } }) as CallToolResult)).toBe('sampled: hello from the 2025 model')
    await legacy.close()
    // the server's messages, as it sent them
    expect(prompts).toEqual(Array(2).fill(JSON.stringify([{ role: 'user', content: { type: 'text', text: 'hi' } }])))

    // a 2025-11-25 client without a sampling handler answers the request with an error: the upstream is told, and so is the agent
    const mute = new LegacyClient({ name: 'modern-test', version: '1' })
    await mute.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    const refused = await mute.callTool({ name: 'modern:ask', arguments: { sample: true } }).then((r) => JSON.stringify(r), (e: Error) => e.message)
    expect(refused).toContain('the caller\'s client refused the sampling request')
    await mute.close()

    // each question on the record as it was decided, under its call's request id: kind and outcome only
    // (the samplings alone: the elicitations of the test before may land late)
    const records = await askedSince('modern', from, 3, 'sampling')
    expect(records.map((r) => r.data)).toEqual([
      { target: 'modern:ask', ask: 'sampling', asked: true, outcome: 'answered' },
      { target: 'modern:ask', ask: 'sampling', asked: true, outcome: 'answered' },
      { target: 'modern:ask', ask: 'sampling', asked: true, outcome: 'refused' },
    ])
    for (const r of records) expect(callOf(r)).toMatchObject({ actor: r.actor, data: { target: 'modern:ask' } })
    expect(JSON.stringify(records)).not.toMatch(/hello from the|"hi"/)
  })

  it('a tool that runs only as a task (the Tasks extension) is called as any tool: its status arrives as progress, its question is put to the agent, its result is the answer', async () => {
    const asked: string[] = []
    const heard: string[] = []
    const onprogress = (p: { message?: string }) => void heard.push(p.message ?? '')
    const legacy = await legacyAgent('Ada', asked)
    expect(text(await legacy.callTool({ name: 'modern:task-only', arguments: {} }, undefined, { onprogress }) as CallToolResult)).toBe('task done: hello Ada')
    await legacy.close()
    const modern = await modernAgent('Grace', asked)
    expect(text(await modern.callTool({ name: 'modern:task-only', arguments: {} }, { onprogress }) as CallToolResult)).toBe('task done: hello Grace')
    await modern.close()
    expect(asked).toEqual(['Your name, for the task?', 'Your name, for the task?'])
    // each agent heard the task's news, in order, as a direct client polling it would
    expect(heard.filter((m) => m === 'warming up')).toHaveLength(2)
    expect(heard.indexOf('warming up')).toBeLessThan(heard.indexOf('waiting for a name'))
  })

  it('a prompt or resource read answering input_required asks the agent, and answers with what it was told', async () => {
    const asked: string[] = []
    const probe = await modernAgent()
    const uri = (await probe.listResources()).resources.map((r) => r.uri).find((u) => u.endsWith('fixture://asked'))!
    await probe.close()
    expect(uri).toBeDefined()
    const content = (r: { contents: unknown[] }) => (r.contents[0] as { text: string }).text
    const prompted = (r: { messages: { content: unknown }[] }) => (r.messages[0].content as { text: string }).text

    const before = lastRecord()
    const modern = await modernAgent('Grace', asked)
    expect(prompted(await modern.getPrompt({ name: 'modern:ask-prompt' }))).toBe('prompt: hello Grace')
    expect(content(await modern.readResource({ uri }))).toBe('resource: hello Grace')
    await modern.close()
    const legacy = await legacyAgent('Ada', asked)
    expect(prompted(await legacy.getPrompt({ name: 'modern:ask-prompt' }))).toBe('prompt: hello Ada')
    expect(content(await legacy.readResource({ uri }))).toBe('resource: hello Ada')
    await legacy.close()
    expect(asked).toEqual(['Your name, for the prompt?', 'Your name, for the resource?', 'Your name, for the prompt?', 'Your name, for the resource?'])
    // each question is on the record under the request it was asked in, as the agent's (the prompt.get or resource.read beside it)
    const records = await askedSince('modern', before, 4, 'elicitation')
    for (const r of records) {
      expect(r.actor).toBe(listActivity(g.db, { requestId: r.requestId }).find((x) => x.type === 'prompt.get' || x.type === 'resource.read')?.actor)
      expect(r.tier).toBe('agent')
      expect(r.data.outcome).toBe('accepted')
    }
    expect(records.map((r) => r.data.target)).toEqual(['modern:ask-prompt', uri, 'modern:ask-prompt', uri])

    // a client that cannot answer: the upstream hears "decline"
    const mute = await modernAgent()
    expect(prompted(await mute.getPrompt({ name: 'modern:ask-prompt' }))).toBe('prompt: hello (decline)')
    await mute.close()
  })

  it('the log level an agent chose reaches the upstream in each request\'s _meta (2026-07-28 has no logging/setLevel)', async () => {
    // 2025-11-25: set once (logging/setLevel), carried by every request of the agent's upstream session
    const legacy = await legacyAgent()
    await legacy.setLoggingLevel('warning')
    expect(text(await legacy.callTool({ name: 'modern:level', arguments: {} }) as CallToolResult)).toBe('level warning')
    await legacy.close()
    // 2026-07-28: the agent's own request carries it (the SDK client sets none of its own)
    const modern = await modernAgent()
    expect(text(await modern.callTool({ name: 'modern:level', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'error' } }) as CallToolResult)).toBe('level error')
    await modern.close()
  })

  it('a resource update the server sends on its subscriptions/listen stream reaches the agent subscribed to it', async () => {
    const c = await modernAgent()
    const uri = (await c.listResources()).resources.map((r) => r.uri).find((u) => u.endsWith('fixture://counter'))!
    const updated: string[] = []
    c.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri))
    const sub = await c.listen({ resourceSubscriptions: [uri] })
    try {
      expect(sub.honoredFilter).toEqual({ resourceSubscriptions: [uri] })
      await c.callTool({ name: 'modern:bump', arguments: {} })
      await waitFor(`an update of ${uri}`, () => updated.length > 0)
      expect(updated).toEqual([uri])
      expect((await c.readResource({ uri })).contents).toEqual([expect.objectContaining({ text: '1' })])
      // the server drops toolgate's stream: it is opened again, and the next update still arrives
      expect(Number(await (await fetch(new URL('/end-listens', modernUrl), { method: 'POST' })).text())).toBeGreaterThan(0)
      await waitFor('the stream opened again', () => readLogs(g.db, 'modern', 200).some((l) => l.line.startsWith('the subscriptions/listen stream ended')))
      await waitFor('a listen stream open at the server again', async () => {
        await c.callTool({ name: 'modern:bump', arguments: {} })
        await new Promise((r) => setTimeout(r, 200))
        return updated.length > 1
      })
      expect(updated.every((u) => u === uri)).toBe(true)
    } finally {
      await sub.close()
      await c.close()
    }
  })

  it('upstream inspect lists what the runtime will be served (the 2026-07-28 set)', async () => {
    await addServer(g.db, { name: 'quarmodern', transport: { url: await modernUpstream() } }, { actor: 'test' })
    const r = await runCli(['upstream', 'inspect', 'quarmodern', '-o', 'json', '--db', g.dbFile])
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as { tools: { id: string }[] }).tools.map((t) => t.id).sort()).toEqual(MODERN_TOOLS.map((t) => `quarmodern:${t}`))
  })

  it('a tool the server adds and announces (on subscriptions/listen) is discovered without re-listing', async () => {
    const c = new LegacyClient({ name: 'modern-test', version: '1' })
    await c.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    await c.callTool({ name: 'modern:grow', arguments: {} })
    await c.close()
    // a tool that arrives after the baseline awaits review (pending): it is discovered, not yet served
    const grown = await waitFor('modern:grown discovered', async () => {
      const listed = await runCli(['tools', 'list', '--server', 'modern', '-o', 'json', '--db', g.dbFile])
      return (JSON.parse(listed.stdout) as { id: string; status: string }[]).find((t) => t.id === 'modern:grown')
    })
    expect(grown.status).toBe('tool_pending_approval')
    const agent = new LegacyClient({ name: 'modern-test', version: '1' })
    await agent.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    try {
      expect((await agent.listTools()).tools.map((t) => t.name)).not.toContain('modern:grown')
      expect(JSON.stringify(await agent.callTool({ name: 'modern:grown', arguments: {} }).catch((e: Error) => e.message))).toContain('tool_pending_approval')
    } finally {
      await agent.close()
    }
    // on the connection it had: no reconnect re-listed it
    expect(readLogs(g.db, 'modern', 200).filter((l) => l.line.startsWith('ready')).map((l) => l.line)).toEqual(['ready (MCP 2026-07-28)'])
  })
})

describe('a 2026-07-28 server that sampling is withheld from', () => {
  it('is not told toolgate can sample: what it asks in input_required needs the capability, so it cannot ask, and the agent\'s model is never asked', async () => {
    await addServer(g.db, { name: 'unsampled', transport: { url: await modernUpstream() }, trusted: true }, { actor: 'test' })
    await waitFor('unsampled ready', () => connectionState(g.db, 'unsampled')?.state === 'ready')
    const since = Date.now()
    expect((await runCli(['upstream', 'set', 'unsampled', '--sampling', 'withhold', '--db', g.dbFile])).code).toBe(0)
    await waitFor('unsampled reconnected', () => { const s = serverState(g.db, 'unsampled'); return s?.connection?.state === 'ready' && (s.connectionAt ?? 0) > since })
    const prompts: string[] = []
    const modern = new Client({ name: 'modern-test', version: '1' }, { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
    modern.setRequestHandler('sampling/createMessage', async (req) => {
      prompts.push(JSON.stringify(req.params.messages))
      return { role: 'assistant' as const, content: { type: 'text' as const, text: 'never' }, model: 'agent-model' }
    })
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    const refused = await modern.callTool({ name: 'unsampled:ask', arguments: { sample: true } }).then((r) => JSON.stringify(r), (e: Error) => e.message)
    await modern.close()
    // the server's own SDK refuses to ask a client that does not declare sampling: so it was not declared
    expect(refused).toMatch(/Cannot request input 'llm' \(sampling\/createMessage\): the request's client capabilities do not declare the required capability/)
    expect(prompts).toEqual([])
  })
})

describe('a 2026-07-28 server that dies', () => {
  it('is noticed (its liveness check, server/discover, fails), no longer reads ready, says why, and is ready again once it is back — as a 2025-11-25 server (ping) is', async () => {
    const modern = await modernProcess()
    await addServer(g.db, { name: 'mortal', transport: { url: modern.url }, trusted: true }, { actor: 'test' })
    // the baseline: the stdio fixture serving 2025-11-25 over Streamable HTTP (its liveness check is ping)
    const port = await freePort()
    const fx = stdioFixture({ tools: [{ name: 't' }] })
    const legacy = spawn(process.execPath, [FIXTURE], { env: { ...process.env, ...fx.httpEnv(port) }, stdio: 'ignore' })
    spawned.push(legacy)
    await waitFor('the 2025-11-25 fixture listening', () => fetch(`http://127.0.0.1:${port}/mcp`).then(() => true, () => false))
    await addServer(g.db, { name: 'mortal25', transport: { url: `http://127.0.0.1:${port}/mcp` }, trusted: true }, { actor: 'test' })
    /**
     * Kill `child` just after a liveness check passed (`heard` counts what its server received),
     * then wait until `server` no longer reads ready: without a liveness check that fails, nothing
     * would notice (no call is made meanwhile).
     */
    const noticed = async (server: string, child: ChildProcess, heard: () => number | Promise<number>) => {
      await waitFor(`${server} ready`, () => connectionState(g.db, server)?.state === 'ready')
      const before = await heard()
      await waitFor(`a liveness check of ${server}`, async () => (await heard()) > before)
      child.kill('SIGKILL')
      await waitFor(`${server} no longer ready`, () => connectionState(g.db, server)?.state !== 'ready')
    }
    await noticed('mortal', modern.child, async () => Number(await (await fetch(new URL('/discovers', modern.url))).text()))
    await noticed('mortal25', legacy, fx.received)
    expect(['disconnected', 'error']).toContain(connectionState(g.db, 'mortal')?.state)
    // the reason is logged as the reconnect begins
    const why = await waitFor('the reconnect logged', () => readLogs(g.db, 'mortal', 200).map((l) => l.line).find((l) => l.includes('reconnecting in')))
    expect(why).toMatch(/server\/discover failed: connection refused/)
    await modernProcess(modern.port)
    await waitFor('mortal ready again', () => connectionState(g.db, 'mortal')?.state === 'ready')
  })
})

describe('a server speaking only 2025-11-25', () => {
  it('upstream list says which revision each server is spoken to at: stdio always 2025-11-25, Streamable HTTP negotiated', async () => {
    const fx = stdioFixture({ tools: [{ name: 'plain' }] })
    await addServer(g.db, { name: 'local', transport: fx.transport, trusted: true }, { actor: 'test' })
    await waitFor('local ready', () => connectionState(g.db, 'local')?.state === 'ready')
    await waitFor('modern ready', () => connectionState(g.db, 'modern')?.state === 'ready')
    const listed = await runCli(['upstream', 'list', '-o', 'json', '--db', g.dbFile])
    const protocol = Object.fromEntries((JSON.parse(listed.stdout) as { name: string; protocol: string; protocolVersion: string | null }[]).map((r) => [r.name, [r.protocol, r.protocolVersion]]))
    // and the revision each ready connection speaks, as it negotiated it
    expect(protocol).toMatchObject({ local: ['2025-11-25', '2025-11-25'], modern: ['negotiated', '2026-07-28'] })
    const table = (await runCli(['upstream', 'list', '--db', g.dbFile])).stdout.split('\n')
    expect(table[0]).toMatch(/CONNECTION +PROTOCOL +TRANSPORT/)
    expect(table.find((l) => l.startsWith('modern '))).toContain('2026-07-28 (negotiated)')
    expect(table.find((l) => l.startsWith('local '))).toMatch(/ready +2025-11-25 /)
    // the server page says it too
    const page = await (await fetch(`${g.server.url}/servers/modern`, { headers: await operatorSessionHeaders(g.db) })).text()
    expect(page).toContain('MCP revision: 2026-07-28 (negotiated)')
  })


  it('server-everything over Streamable HTTP still connects (the probe falls back to initialize) and answers calls', async () => {
    spawned.push(await everythingOverHttp(g.db, 'evhttp'))
    const c = new LegacyClient({ name: 'modern-test', version: '1' })
    await c.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await c.callTool({ name: 'evhttp:echo', arguments: { message: 'still 2025' } }) as CallToolResult)).toBe('Echo: still 2025')
    await c.close()
    // negotiated, at 2025-11-25: what the page and upstream list say
    expect(serverState(g.db, 'evhttp')?.protocolVersion).toBe('2025-11-25')
  })
})
