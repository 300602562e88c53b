import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Db } from '@/db/client'
import { createAgentToken } from '@/lib/admin/tokens'
import { runCli } from '@/tests/helpers/cli'
import { startGateway } from '@/tests/helpers/gateway'
import type { RunningServer } from '@/tests/helpers/server'
import { readLogs } from '@/db/queries/upstream'
import { EXTENSION_ID } from '@/lib/schemas/extension'
import { rpcBody } from '@/tests/helpers/rpc'
import { connectionState, everything, everythingOverHttp, stdioFixture, waitFor } from './harness'

// Each agent its own upstream session: what one agent's session produced (server-everything's
// session resources) is not there for another, as a second direct session would not see it.

const KEY = 'tg_op_sessions_test_key_000000000'
const DATA = `data:text/plain;base64,${Buffer.from('only for agent A').toString('base64')}`

let db: Db
let dbFile: string
let server: RunningServer
let agentA: string
let agentB: string
const spawned: ChildProcess[] = []
const fx = stdioFixture({ tools: [{ name: 'ok' }, { name: 'die', exit: true }] })

beforeAll(async () => {
  // an agent's session idles out after 4 s here (10 minutes by default)
  ;({ db, dbFile, server, agent: agentA } = await startGateway(KEY, { upstreams: { everything: everything('stdio'), fx: fx.transport }, env: { TOOLGATE_SESSION_IDLE_MS: '4000' } }))
  agentB = (await createAgentToken(db, 'agent-b', { allowedServers: ['*'], profilePin: null }, { actor: 'test' })).token
})
afterAll(async () => {
  await server?.stop()
  for (const p of spawned) p.kill()
})

const client = async (token: string) => {
  const c = new Client({ name: 'sessions-test', version: '1' })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return c
}

/** Agent A makes a session resource on `srv`; agent A reads it back, agent B neither lists nor reads it. */
async function sessionResourceStaysWithItsAgent(srv: string) {
  const a = await client(agentA)
  const b = await client(agentB)
  try {
    const made = await a.callTool({ name: `${srv}:gzip-file-as-resource`, arguments: { name: `${srv}-a.gz`, data: DATA, outputType: 'resourceLink' } }) as CallToolResult
    expect(made.isError ?? false, JSON.stringify(made)).toBe(false)
    const link = made.content.find((x) => x.type === 'resource_link') as { uri: string } | undefined
    expect(link?.uri).toContain(`demo://resource/session/${srv}-a.gz`)
    const own = await a.readResource({ uri: link!.uri })
    expect((own.contents[0] as { blob?: string }).blob).toBeTruthy()

    expect((await b.listResources()).resources.map((r) => r.uri).filter((u) => u.includes(`${srv}-a.gz`))).toEqual([])
    await expect(b.readResource({ uri: link!.uri })).rejects.toThrow(/not found/i)
  } finally {
    await a.close()
    await b.close()
  }
}

const isolationOf = async (name: string) => {
  const listed = await runCli(['upstream', 'list', '--db', dbFile, '-o', 'json'])
  return (JSON.parse(listed.stdout) as { name: string; isolation: unknown }[]).find((r) => r.name === name)?.isolation
}

describe('upstream sessions per agent', () => {
  it('stdio (per_token, as server-everything declares session state): agent B cannot list or read agent A\'s session resource', async () => {
    // resource subscriptions are session state: auto runs a process per agent token
    expect(await waitFor('everything\'s session state recorded', async () => ((await isolationOf('everything')) as { sessionState: unknown } | undefined)?.sessionState === true)).toBe(true)
    expect(await isolationOf('everything')).toEqual({ setting: 'auto', runs: 'per_token', sessionState: true })
    await sessionResourceStaysWithItsAgent('everything')
  })

  it('Streamable HTTP: each agent token its own upstream session', async () => {
    spawned.push(await everythingOverHttp(db, 'evhttp'))
    await sessionResourceStaysWithItsAgent('evhttp')
  })

  it('shared isolation keeps one process for every agent (a stateless server\'s choice), and the server says which mode runs', async () => {
    // trust auto: the session resource the server then lists (list_changed) is served without an approval, whenever the re-listing lands
    expect((await runCli(['upstream', 'set', 'everything', '--isolation', 'shared', '--trust', 'auto', '--db', dbFile])).code).toBe(0)
    expect((await isolationOf('everything'))).toMatchObject({ setting: 'shared', runs: 'shared' })
    const a = await client(agentA)
    const b = await client(agentB)
    try {
      const made = await a.callTool({ name: 'everything:gzip-file-as-resource', arguments: { name: 'shared.gz', data: DATA } }) as CallToolResult
      const link = made.content.find((x) => x.type === 'resource_link') as { uri: string }
      // one process: B lists and reads what A made, exactly as two clients of that one process would
      await waitFor('B lists A\'s resource', async () => (await b.listResources()).resources.some((r) => r.uri === link.uri))
      expect((await b.readResource({ uri: link.uri })).contents).toHaveLength(1)
    } finally {
      await a.close()
      await b.close()
      await runCli(['upstream', 'set', 'everything', '--isolation', 'auto', '--trust', 'manual', '--db', dbFile])
    }
  })

  it('a token whose own session is down is told so by preflight, while another token\'s reads ready; an idle session stops', async () => {
    expect((await runCli(['upstream', 'set', 'fx', '--isolation', 'per_token', '--db', dbFile])).code).toBe(0)
    const resolve = async (token: string) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/resolve', params: { name: 'fx:ok' } }),
      })
      const body = await rpcBody<{ result: { tool: { _meta: Record<string, { status: string; reason?: string; detail?: string }> } } }>(res)
      return body.result.tool._meta[EXTENSION_ID]
    }
    const a = await client(agentA)
    try {
      expect((await a.callTool({ name: 'fx:ok', arguments: {} }) as CallToolResult).content).toEqual([{ type: 'text', text: 'ok: {}' }])
      // A's process ends, and none can start again: A's session is down, the server's is not
      fx.set({ startMode: 'crash', tools: [{ name: 'ok' }, { name: 'die', exit: true }] })
      await a.callTool({ name: 'fx:die', arguments: {} }).catch(() => undefined)
      const down = await waitFor('agent A told its session is down', async () => { const v = await resolve(agentA); return v.status === 'unavailable' ? v : undefined })
      expect(down).toMatchObject({ reason: 'server_unhealthy' })
      expect(down.detail).toMatch(/closed|exited/)
      expect(await resolve(agentB)).toEqual({ status: 'ready' })
      expect(connectionState(db, 'fx')?.state).toBe('ready')
      // it comes back by itself once its process can start again
      fx.set({ tools: [{ name: 'ok' }, { name: 'die', exit: true }] })
      await waitFor('agent A ready again', async () => (await resolve(agentA)).status === 'ready')
      expect((await a.callTool({ name: 'fx:ok', arguments: {} }) as CallToolResult).content).toEqual([{ type: 'text', text: 'ok: {}' }])
    } finally {
      await a.close()
    }
    await waitFor('agent A\'s idle session stopped', () => readLogs(db, 'fx', 200).some((l) => /session\] stopped: idle/.test(l.line)))
  })
})
