import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { readLogs } from '@/db/queries/upstream'
import { addServer } from '@/lib/admin/upstreams'
import { runCli } from '@/tests/helpers/cli'
import { startGateway, type Gateway } from '@/tests/helpers/gateway'
import { freePort } from '@/tests/helpers/server'
import { connectionState, everythingOverHttp, waitFor } from './harness'

// Upstreams spoken to at 2026-07-28 when they offer it (server/discover, falling back to
// initialize): a real v2-SDK server that offers more at 2026-07-28 than at 2025-11-25, and asks
// its caller through input_required; server-everything (2025-11-25 only) still connects.

const KEY = 'tg_op_modern_upstream_test_key_000'
const MODERN_FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'modern-upstream.mjs')

let g: Gateway
const spawned: ChildProcess[] = []

/** The modern fixture on a free loopback port, once it answers. */
async function modernUpstream(): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, [MODERN_FIXTURE], { env: { ...process.env, FIXTURE_PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] })
  spawned.push(child)
  const url = `http://127.0.0.1:${port}/mcp`
  await waitFor('the modern fixture listening', () => fetch(url, { signal: AbortSignal.timeout(500) }).then(() => true, () => false))
  return url
}

let modernUrl: string

beforeAll(async () => {
  // no periodic re-listing: a change is heard only if the server's announcement arrives
  g = await startGateway(KEY, { env: { TOOLGATE_RELIST_INTERVAL_MS: String(30 * 60_000) } })
  modernUrl = await modernUpstream()
  await addServer(g.db, { name: 'modern', transport: { url: modernUrl }, trusted: true }, { actor: 'test' })
  await waitFor('modern ready', () => connectionState(g.db, 'modern')?.state === 'ready')
})
afterAll(async () => {
  await g?.server.stop()
  for (const p of spawned) p.kill()
})

const headers = () => ({ authorization: `Bearer ${g.agent}` })
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('')

describe('a server offering 2026-07-28', () => {
  it('is listed as it lists itself at 2026-07-28, to agents of either revision, and stays ready', async () => {
    const legacy = new LegacyClient({ name: 'modern-test', version: '1' })
    await legacy.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    const names = (await legacy.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('modern:'))
    expect(names.sort()).toEqual(['modern:ask', 'modern:both', 'modern:grow', 'modern:modern-only'])
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
    await modern.close()
    expect(asked).toEqual(['Your name?', 'Your name?'])

    // a client that cannot answer: the upstream hears "decline", and says so
    const mute = new LegacyClient({ name: 'modern-test', version: '1' })
    await mute.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await mute.callTool({ name: 'modern:ask', arguments: {} }) as CallToolResult)).toBe('hello (decline)')
    await mute.close()
  })

  it('upstream inspect lists what the runtime will be served (the 2026-07-28 set)', async () => {
    await addServer(g.db, { name: 'quarmodern', transport: { url: await modernUpstream() } }, { actor: 'test' })
    const r = await runCli(['upstream', 'inspect', 'quarmodern', '-o', 'json', '--db', g.dbFile])
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as { tools: { id: string }[] }).tools.map((t) => t.id).sort()).toEqual(['quarmodern:ask', 'quarmodern:both', 'quarmodern:grow', 'quarmodern:modern-only'])
  })

  it('a tool the server adds and announces (on subscriptions/listen) is discovered without re-listing', async () => {
    const c = new LegacyClient({ name: 'modern-test', version: '1' })
    await c.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    await c.callTool({ name: 'modern:grow', arguments: {} })
    await c.close()
    // a tool that arrives after the baseline awaits review (pending): it is discovered, not yet served
    await waitFor('modern:grown discovered', async () => {
      const listed = await runCli(['tools', 'list', '--server', 'modern', '-o', 'json', '--db', g.dbFile])
      return (JSON.parse(listed.stdout) as { id: string }[]).some((t) => t.id === 'modern:grown')
    })
    // on the connection it had: no reconnect re-listed it
    expect(readLogs(g.db, 'modern', 200).filter((l) => l.line === 'ready')).toHaveLength(1)
  })
})

describe('a server speaking only 2025-11-25', () => {
  it('server-everything over Streamable HTTP still connects (the probe falls back to initialize) and answers calls', async () => {
    spawned.push(await everythingOverHttp(g.db, 'evhttp'))
    const c = new LegacyClient({ name: 'modern-test', version: '1' })
    await c.connect(new LegacyTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: headers() } }))
    expect(text(await c.callTool({ name: 'evhttp:echo', arguments: { message: 'still 2025' } }) as CallToolResult)).toBe('Echo: still 2025')
    await c.close()
  })
})
