import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { addServer } from '@/lib/admin/upstreams'
import { listActivity } from '@/db/queries/activity'
import { freshDb } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { connectionState, runtimeEnv, waitFor } from '@/tests/upstream/harness'

/** A Streamable HTTP MCP server on loopback that keeps the Authorization header of every request. */
async function mcpServer(): Promise<{ url: string; authorizations: (string | undefined)[]; close: () => Promise<void> }> {
  const authorizations: (string | undefined)[] = []
  const server = http.createServer(async (req, res) => {
    authorizations.push(req.headers.authorization)
    const s = new Server({ name: 'wiki', version: '1.0.0' }, { capabilities: { tools: {} } })
    s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'page', inputSchema: { type: 'object' } }] }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await s.connect(transport)
    res.on('close', () => void s.close())
    await transport.handleRequest(req, res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, authorizations,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()) }),
  }
}

const SECRET = 'Bearer wiki-secret-0000'
let db: Db
let dbFile: string
let toolgate: RunningServer
let first: Awaited<ReturnType<typeof mcpServer>>
let elsewhere: Awaited<ReturnType<typeof mcpServer>>

beforeAll(async () => {
  ;({ db, file: dbFile } = freshDb())
  ;[first, elsewhere] = await Promise.all([mcpServer(), mcpServer()])
  toolgate = await startServer({ TOOLGATE_DB: dbFile, TOOLGATE_API_KEY: 'tg_op_state_secrets_key_00000000', ...runtimeEnv })
  await addServer(db, { name: 'wiki', transport: { url: first.url, headers: { Authorization: SECRET } }, trusted: true }, { actor: 'test' })
  await waitFor('wiki ready on its first URL', () => connectionState(db, 'wiki')?.state === 'ready')
})
afterAll(async () => {
  await toolgate?.stop()
  await Promise.all([first?.close(), elsewhere?.close()])
})

/** `state dump`, with `edit` applied to wiki's transport, written to a file. */
async function editedDump(edit: (t: { url: string }) => void): Promise<string> {
  const dump = await runCli(['state', 'dump', '--db', dbFile])
  expect(dump.code, dump.stderr).toBe(0)
  const state = JSON.parse(dump.stdout)
  edit(state.servers.find((s: { name: string }) => s.name === 'wiki').transport)
  const file = path.join(path.dirname(dbFile), `state-${Date.now()}.json`)
  writeFileSync(file, JSON.stringify(state))
  return file
}

describe('state load and the stored secrets of a server it moves', () => {
  it('a dump loaded back as it is keeps the secret: the server reconnects with it', async () => {
    const seen = first.authorizations.length
    const load = await runCli(['state', 'load', await editedDump(() => undefined), '--db', dbFile])
    expect(load.code, load.stderr).toBe(0)
    expect(load.stdout).not.toContain('dropped')
    await waitFor('wiki reconnected', () => first.authorizations.length > seen && connectionState(db, 'wiki')?.state === 'ready')
    expect(first.authorizations.slice(seen).every((a) => a === SECRET)).toBe(true)
  })

  it('a dump that names another URL drops the secret, says so, and the new URL never receives it', async () => {
    const load = await runCli(['state', 'load', await editedDump((t) => (t.url = elsewhere.url)), '--db', dbFile])
    expect(load.code, load.stderr).toBe(0)
    expect(load.stdout).toContain(`wiki: stored secrets dropped, its target changed (${first.url} → ${elsewhere.url}): Authorization. Set them again for the new target`)
    // the runtime took the loaded state: wiki waits for its secret instead of connecting anywhere with the old one
    await waitFor('wiki waiting for its secret', () => connectionState(db, 'wiki')?.action === 'set_secret' || elsewhere.authorizations.length > 0)
    expect(elsewhere.authorizations).not.toContain(SECRET)
    const [record] = listActivity(db, { type: 'state.loaded', limit: 1 })
    expect(record.data).toMatchObject({ secrets_dropped: [{ server: 'wiki', from: first.url, to: elsewhere.url, secrets: ['Authorization'], oauth: false }] })
  })

  it('--keep-secrets keeps them for the new target, and says so', async () => {
    // back to the first URL with the secret set again, then moved on purpose
    await runCli(['state', 'load', await editedDump((t) => (t.url = first.url)), '--db', dbFile])
    const set = await runCli(['upstream', 'set-secret', 'wiki', 'Authorization', '--db', dbFile], {}, SECRET)
    expect(set.code, set.stderr).toBe(0)
    await waitFor('wiki ready again', () => connectionState(db, 'wiki')?.state === 'ready')
    const load = await runCli(['state', 'load', await editedDump((t) => (t.url = elsewhere.url)), '--keep-secrets', '-o', 'json', '--db', dbFile])
    expect(load.code, load.stderr).toBe(0)
    expect(JSON.parse(load.stdout)).toMatchObject({ secrets_dropped: [], secrets_kept: [{ server: 'wiki', from: first.url, to: elsewhere.url, secrets: ['Authorization'] }] })
    await waitFor('the new URL gets the kept secret', () => elsewhere.authorizations.includes(SECRET))
  })
})
