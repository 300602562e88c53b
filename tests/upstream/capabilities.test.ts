import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema, type CallToolResult, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import type { Db } from '@/db/client'
import { addServer } from '@/lib/admin/upstreams'
import { createAgentToken, updateAgentToken } from '@/lib/admin/tokens'
import { runCli } from '@/tests/helpers/cli'
import { startGateway } from '@/tests/helpers/gateway'
import type { RunningServer } from '@/tests/helpers/server'
import { readLogs } from '@/db/queries/upstream'
import { eq } from 'drizzle-orm'
import { agentTokens } from '@/db/schema'
import { connectionState, everything, everythingOverHttp, stdioFixture, waitFor } from './harness'
import { connectWithStream } from '@/tests/mcp/harness'

// Every MCP capability through toolgate, against the real server-everything: what a client
// connected to it directly could use (inspection with the runtime's capabilities, completion,
// elicitation while other calls are in flight), gated like calls.

const KEY = 'tg_op_capabilities_test_key_00000'

let db: Db
let dbFile: string
let server: RunningServer
let agent: string
/** an agent whose scope holds only fx: everything is none of its business */
let narrow: string
/** a second agent with every server in scope */
let other: string
const fx = stdioFixture({ tools: [{ name: 'ok' }] })
const spawned: ChildProcess[] = []

beforeAll(async () => {
  ;({ db, dbFile, server, agent } = await startGateway(KEY, { upstreams: { everything: everything('stdio'), fx: fx.transport } }))
  narrow = (await createAgentToken(db, 'narrow', { allowedServers: ['fx'], profilePin: null }, { actor: 'test' })).token
  other = (await createAgentToken(db, 'other', { allowedServers: ['*'], profilePin: null }, { actor: 'test' })).token
})
afterAll(async () => {
  await server?.stop()
  for (const p of spawned) p.kill()
})

const client = async (token: string) => {
  const c = new Client({ name: 'capabilities-test', version: '1' })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return c
}

describe('inspection', () => {
  it('upstream inspect declares the runtime\'s client capabilities: tools a server offers only to such clients are shown before release', async () => {
    await addServer(db, { name: 'quar', transport: everything('stdio') }, { actor: 'test' })
    const r = await runCli(['upstream', 'inspect', 'quar', '-o', 'json', '--db', dbFile])
    expect(r.code, r.stderr).toBe(0)
    const ids = (JSON.parse(r.stdout) as { tools: { id: string }[] }).tools.map((t) => t.id)
    // offered only to a client declaring roots and elicitation, as the runtime's connection does
    expect(ids).toEqual(expect.arrayContaining(['quar:get-roots-list', 'quar:trigger-elicitation-request', 'quar:echo']))
    // and what the runtime then discovers is exactly what was reviewed: nothing arrives pending after release
    expect((await runCli(['upstream', 'unquarantine', 'quar', '--db', dbFile])).code).toBe(0)
    await waitFor('quar ready', () => connectionState(db, 'quar')?.state === 'ready')
    const listed = await runCli(['tools', 'list', '--server', 'quar', '-o', 'json', '--db', dbFile])
    const rows = JSON.parse(listed.stdout) as { id: string; status: string }[]
    expect(rows.map((t) => t.id).sort()).toEqual([...ids].sort())
    expect(rows.filter((t) => t.status !== 'callable').map((t) => [t.id, t.status])).toEqual([])
  })
})

describe('completion/complete', () => {
  it('completes a prompt\'s arguments and a resource template\'s, from the server that owns them', async () => {
    const c = await client(agent)
    try {
      expect(c.getServerCapabilities()?.completions).toBeDefined()
      const dept = await c.complete({ ref: { type: 'ref/prompt', name: 'everything:completable-prompt' }, argument: { name: 'department', value: 'S' } })
      expect(dept.completion.values).toEqual(['Sales', 'Support'])
      // the context's earlier arguments reach the server as given
      const lead = await c.complete({ ref: { type: 'ref/prompt', name: 'everything:completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Engineering' } } })
      expect(lead.completion.values).toEqual(['Alice', 'Bob', 'Charlie'])
      // a template as listed (namespaced where two servers list the same one: quar is server-everything too)
      const templates = (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).filter((u) => u.endsWith('demo://resource/dynamic/text/{resourceId}'))
      expect(templates.length).toBeGreaterThan(0)
      for (const uri of templates) {
        const id = await c.complete({ ref: { type: 'ref/resource', uri }, argument: { name: 'resourceId', value: '7' } })
        expect(id.completion.values, uri).toEqual(['7'])
        expect((await c.complete({ ref: { type: 'ref/resource', uri }, argument: { name: 'resourceId', value: 'x' } })).completion.values).toEqual([])
      }
    } finally {
      await c.close()
    }
  })

  it('is gated like a call: a prompt or template outside the token\'s scope is unknown, and nothing is said about it', async () => {
    const c = await client(narrow)
    try {
      await expect(c.complete({ ref: { type: 'ref/prompt', name: 'everything:completable-prompt' }, argument: { name: 'department', value: 'S' } }))
        .rejects.toThrow(/Unknown prompt: "everything:completable-prompt"/)
      await expect(c.complete({ ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '7' } }))
        .rejects.toThrow(/Unknown resource template/)
      // an unknown one reads the same
      await expect(c.complete({ ref: { type: 'ref/prompt', name: 'fx:nope' }, argument: { name: 'a', value: '' } })).rejects.toThrow(/Unknown prompt: "fx:nope"/)
    } finally {
      await c.close()
    }
  })
})

/** A client that answers every elicitation with `answer` (given the question), noting each question asked. */
async function eliciting(token: string, answer: (params: ElicitRequest['params']) => Record<string, unknown>) {
  const asked: string[] = []
  const c = new Client({ name: 'capabilities-test', version: '1' }, { capabilities: { elicitation: { form: {} } } })
  c.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message)
    return { action: 'accept', content: answer(req.params) as Record<string, string> }
  })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return { c, asked }
}
const textOf = (r: CallToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')

describe('elicitation while other calls of the same session are in flight', () => {
  it('Streamable HTTP: the question goes to the call it came on (its request\'s stream), never declined unasked', async () => {
    spawned.push(await everythingOverHttp(db, 'evhttp'))
    const { c, asked } = await eliciting(agent, () => ({ name: 'Ada Lovelace' }))
    try {
      // one agent token, one upstream session: two calls of it in flight at once
      const long = c.callTool({ name: 'evhttp:trigger-long-running-operation', arguments: { duration: 3, steps: 3 } }, undefined, { timeout: 60_000 })
      long.catch(() => undefined) // awaited below; a failure above must not leave it unhandled
      const asking = await c.callTool({ name: 'evhttp:trigger-elicitation-request', arguments: {} }, undefined, { timeout: 60_000 }) as CallToolResult
      expect(asked).toEqual(['Please provide inputs for the following fields:'])
      expect(textOf(asking)).toContain('Ada Lovelace')
      expect(textOf(await long as CallToolResult)).toMatch(/completed/i)
    } finally {
      await c.close()
    }
  })

  it('stdio: a task\'s question (its related-task) goes to the call running that task', async () => {
    const { c, asked } = await eliciting(agent, (p) => {
      const options = (p as unknown as { requestedSchema: { properties: { interpretation: { oneOf: { const: string }[] } } } }).requestedSchema.properties.interpretation.oneOf
      return { interpretation: options[0].const }
    })
    try {
      const long = c.callTool({ name: 'everything:trigger-long-running-operation', arguments: { duration: 4, steps: 4 } }, undefined, { timeout: 60_000 })
      long.catch(() => undefined) // awaited below; a failure above must not leave it unhandled
      const research = await c.callTool({ name: 'everything:simulate-research-query', arguments: { topic: 'python', ambiguous: true } }, undefined, { timeout: 60_000 }) as CallToolResult
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain('"python" could have multiple interpretations')
      expect(textOf(research)).toContain('After receiving clarification ("programming")')
      expect(textOf(await long as CallToolResult)).toMatch(/completed/i)
    } finally {
      await c.close()
    }
  })
})

describe('logging/setLevel', () => {
  it('reaches the upstream session of the agent that set it, and no other agent\'s', async () => {
    // server-everything's simulated logging: a message of a random level every 5 s, sent only at
    // or above the level its session set; between calls toolgate notes them in the server's log
    const a = await client(agent)
    const b = await client(other)
    /** the level of each message the named token's session was sent that reached toolgate after `since` */
    const levels = (tokenName: string, since = 0) => {
      const id = db.select({ id: agentTokens.id }).from(agentTokens).where(eq(agentTokens.name, tokenName)).get()!.id
      const prefix = `[token ${id}'s session] log (`
      // each line: "log (<level>[, <logger>]): <message>"
      return readLogs(db, 'everything', 200).filter((l) => l.at > since && l.line.startsWith(prefix)).map((l) => l.line.slice(prefix.length).split(/[,)]/)[0])
    }
    const belowEmergency = (tokenName: string, since?: number) => levels(tokenName, since).filter((l) => l !== 'emergency')
    try {
      // set before the agent's session starts (or, where an earlier test started it, while it runs)
      await a.setLoggingLevel('emergency')
      const set = Date.now()
      for (const c of [a, b]) expect(textOf(await c.callTool({ name: 'everything:toggle-simulated-logging', arguments: {} }) as CallToolResult)).toMatch(/^Started simulated/)
      // B, at the server's default level, hears every level; meanwhile A's session was sent as many messages
      await waitFor('four of B\'s session\'s messages below emergency', () => belowEmergency('other', set).length >= 4, 90_000)
      expect(belowEmergency('upstream-tests', set)).toEqual([])

      // set while the sessions run: each is told at once, and only its own (what reaches toolgate
      // after the answer was sent after the level: a session's messages and answers keep their order)
      await b.setLoggingLevel('emergency')
      await a.setLoggingLevel('debug')
      const switched = Date.now()
      await waitFor('four of A\'s session\'s messages below emergency', () => belowEmergency('upstream-tests', switched).length >= 4, 90_000)
      expect(belowEmergency('other', switched)).toEqual([])
    } finally {
      for (const c of [a, b]) await c.callTool({ name: 'everything:toggle-simulated-logging', arguments: {} }).catch(() => undefined)
      await a.close()
      await b.close()
    }
  }, 240_000)
})

describe('list_changed on 2026-07-28 (subscriptions/listen)', () => {
  /** An agent's modern client listening for every listing's changes, counting each notification it hears. */
  async function listener(token: string) {
    const c = new ModernClient({ name: 'capabilities-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    const heard: string[] = []
    for (const method of ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'] as const) {
      c.setNotificationHandler(method, () => void heard.push(method.split('/')[1]))
    }
    await c.connect(new ModernTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
    const sub = await c.listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true })
    return { c, sub, heard }
  }
  const status = async (id: string) => {
    const listed = await runCli(['tools', 'list', '--server', id.split(':')[0], '-o', 'json', '--db', dbFile])
    return (JSON.parse(listed.stdout) as { id: string; status: string }[]).find((t) => t.id === id)?.status
  }

  it('an agent hears of a change to what it is served: an approval in its scope, never a pending tool nor another scope\'s server', async () => {
    const fx2 = stdioFixture({ tools: [{ name: 'a' }], resources: [] })
    await addServer(db, { name: 'fx2', transport: fx2.transport, trusted: true }, { actor: 'test' })
    await waitFor('fx2 ready', () => connectionState(db, 'fx2')?.state === 'ready')
    const wide = await listener(agent)
    const fxOnly = await listener(narrow)
    try {
      expect(wide.sub.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true })
      // fx2 (outside narrow's scope) offers a new tool, which waits for approval: served to no one yet
      fx2.set({ tools: [{ name: 'a' }, { name: 'b' }], resources: [] })
      expect(await waitFor('fx2:b discovered', () => status('fx2:b'))).toMatch(/pending/)
      expect((await runCli(['tools', 'approve', 'fx2:b', '--db', dbFile])).code).toBe(0)
      await waitFor('the wide agent told', () => wide.heard.length > 0)
      expect(wide.heard).toEqual(['tools'])
      expect((await wide.c.listTools()).tools.map((t) => t.name)).toContain('fx2:b')

      // fx, in both scopes: an approval there reaches both, and it is the first narrow hears
      fx.set({ tools: [{ name: 'ok' }, { name: 'c' }] })
      expect(await waitFor('fx:c discovered', () => status('fx:c'))).toMatch(/pending/)
      expect((await runCli(['tools', 'approve', 'fx:c', '--db', dbFile])).code).toBe(0)
      await waitFor('both agents told', () => wide.heard.length > 1 && fxOnly.heard.length > 0)
      expect(fxOnly.heard).toEqual(['tools'])
      expect(wide.heard).toEqual(['tools', 'tools'])

      // a server whose definitions are served without review (trust auto): its new resource is news at once, to its scope alone
      expect((await runCli(['upstream', 'set', 'fx2', '--trust', 'auto', '--db', dbFile])).code).toBe(0)
      fx2.set({ tools: [{ name: 'a' }, { name: 'b' }], resources: [{ uri: 'fx2://note', name: 'note', text: 'hello' }] })
      await waitFor('the wide agent told of the resource', () => wide.heard.includes('resources'))
      expect((await wide.c.listResources()).resources.map((r) => r.uri)).toContain('fx2://note')
      // narrow, told once a check after fx's approval, is told nothing of fx2 since
      expect(fxOnly.heard).toEqual(['tools'])
    } finally {
      for (const l of [wide, fxOnly]) {
        await l.sub.close()
        await l.c.close()
      }
    }
  }, 240_000)
})

describe('resource subscriptions on 2026-07-28 (subscriptions/listen)', () => {
  it('a subscription goes to the agent\'s own upstream session, and only its updates reach it; out of scope, it is not acknowledged nor heard', async () => {
    /** An agent's modern client listening for `uri`'s updates (and tools list changes), noting each update it hears. */
    const subscriber = async (token: string, uri: string) => {
      const c = new ModernClient({ name: 'capabilities-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      const updated: string[] = []
      c.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri))
      await c.connect(new ModernTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
      const sub = await c.listen({ toolsListChanged: true, resourceSubscriptions: [uri] })
      return { c, sub, updated }
    }
    const probe = await client(agent)
    // as listed: namespaced where another server (quar, above) lists the same URI, and heard of under that name
    const uri = (await probe.listResources()).resources.map((r) => r.uri).find((u) => /^(toolgate:\/\/everything\/)?demo:\/\/resource\/static\//.test(u))!
    await probe.close()
    expect(uri).toBeDefined()
    const mine = await subscriber(agent, uri)
    const others = await subscriber(other, uri)
    const outside = await subscriber(narrow, uri)
    try {
      expect(mine.sub.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [uri] })
      expect(others.sub.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [uri] })
      // not narrow's to hear of: the acknowledgement says so
      expect(outside.sub.honoredFilter).toEqual({ toolsListChanged: true })
      // server-everything sends updates for its subscriptions, every 5 s, once a session asks for them
      expect(textOf(await mine.c.callTool({ name: 'everything:toggle-subscriber-updates', arguments: {} }) as CallToolResult)).toMatch(/^Started simulated resource updated/)
      await waitFor(`an update of ${uri}`, () => mine.updated.length >= 2, 90_000)
      expect(new Set(mine.updated)).toEqual(new Set([uri]))
      // the other agent's session never asked for updates: nothing of the first agent's session reaches it
      expect(others.updated).toEqual([])
      expect(outside.updated).toEqual([])

      // once the other agent's session sends them too, it hears them — until its scope no longer holds the server
      await others.c.callTool({ name: 'everything:toggle-subscriber-updates', arguments: {} })
      await waitFor('the other agent\'s first update', () => others.updated.length > 0, 90_000)
      await updateAgentToken(db, 'other', { allowedServers: ['fx'], profilePin: null }, { actor: 'test' })
      // both sessions send every 5 s: the first agent's next update marks a point after the change,
      // and two more after it mean the other's session has sent since
      const settled = mine.updated.length + 1
      await waitFor('the first agent\'s next update', () => mine.updated.length >= settled, 90_000)
      const heardBefore = others.updated.length
      await waitFor('two more updates for the first agent', () => mine.updated.length >= settled + 2, 90_000)
      expect(others.updated.length).toBe(heardBefore)
    } finally {
      await updateAgentToken(db, 'other', { allowedServers: ['*'], profilePin: null }, { actor: 'test' })
      await others.c.callTool({ name: 'everything:toggle-subscriber-updates', arguments: {} }).catch(() => undefined)
      await mine.c.callTool({ name: 'everything:toggle-subscriber-updates', arguments: {} }).catch(() => undefined)
      for (const s of [mine, others, outside]) {
        await s.sub.close()
        await s.c.close()
      }
    }
  }, 240_000)
})

describe('list_changed on 2025-11-25 (the GET stream)', () => {
  /**
   * An agent's 2025-11-25 client (the 1.x SDK) with its GET stream open, counting each
   * list_changed it hears there.
   */
  async function legacyListener(token: string) {
    const c = new Client({ name: 'capabilities-test', version: '1' })
    const heard: string[] = []
    for (const [schema, kind] of [[ToolListChangedNotificationSchema, 'tools'], [PromptListChangedNotificationSchema, 'prompts'], [ResourceListChangedNotificationSchema, 'resources']] as const) {
      c.setNotificationHandler(schema, () => void heard.push(kind))
    }
    await connectWithStream(c, `${server.url}/mcp`, token)
    return { c, heard }
  }
  const status = async (id: string) => {
    const listed = await runCli(['tools', 'list', '--server', id.split(':')[0], '-o', 'json', '--db', dbFile])
    return (JSON.parse(listed.stdout) as { id: string; status: string }[]).find((t) => t.id === id)?.status
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  it('an approval reaches the connected clients it is served to within seconds, and their re-listing has the tool; another scope hears nothing', async () => {
    const fx3 = stdioFixture({ tools: [{ name: 'a' }] })
    await addServer(db, { name: 'fx3', transport: fx3.transport, trusted: true }, { actor: 'test' })
    await waitFor('fx3 ready', () => connectionState(db, 'fx3')?.state === 'ready')
    const wide = await legacyListener(agent)
    const fxOnly = await legacyListener(narrow)
    try {
      // a tool arriving pending approval is no news; its approval is, to the scope it is served to
      fx3.set({ tools: [{ name: 'a' }, { name: 'b' }] })
      expect(await waitFor('fx3:b discovered', () => status('fx3:b'))).toMatch(/pending/)
      await sleep(1_500)
      expect(wide.heard).toEqual([])
      expect((await runCli(['tools', 'approve', 'fx3:b', '--db', dbFile])).code).toBe(0)
      const approved = Date.now()
      await waitFor('the wide agent told', () => wide.heard.length > 0, 5_000)
      expect(Date.now() - approved).toBeLessThan(5_000)
      expect(wide.heard).toEqual(['tools'])
      expect((await wide.c.listTools()).tools.map((t) => t.name)).toContain('fx3:b')
      // fx3 is outside narrow's scope: a check later it still heard nothing...
      await sleep(1_500)
      expect(fxOnly.heard).toEqual([])
      // ...while its own stream is live: an approval on fx, in its scope, reaches it
      fx.set({ tools: [{ name: 'ok' }, { name: 'c' }, { name: 'd' }] })
      expect(await waitFor('fx:d discovered', () => status('fx:d'))).toMatch(/pending/)
      expect((await runCli(['tools', 'approve', 'fx:d', '--db', dbFile])).code).toBe(0)
      await waitFor('narrow told', () => fxOnly.heard.length > 0, 5_000)
      expect(fxOnly.heard).toEqual(['tools'])
      expect((await fxOnly.c.listTools()).tools.map((t) => t.name)).toContain('fx:d')
    } finally {
      for (const l of [wide, fxOnly]) await l.c.close()
    }
  }, 120_000)
})
