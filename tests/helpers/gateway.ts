import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Db } from '@/db/client'
import type { Transport } from '@/db/schema'
import { addServer } from '@/lib/admin/upstreams'
import { freshDb } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { agentToken, connectionState, runtimeEnv, waitFor } from '@/tests/upstream/harness'

export interface Gateway { db: Db; dbFile: string; server: RunningServer; agent: string }

/**
 * The set-up of the files that proxy to real upstreams: a fresh database with an agent token
 * (/mcp answers agent tokens only), the real toolgate on it with its runtime on, and `upstreams`
 * added as trusted servers and connected before the tests start.
 */
export async function startGateway(key: string, opts: { env?: Record<string, string>; upstreams?: Record<string, Transport> } = {}): Promise<Gateway> {
  const { db, file: dbFile } = freshDb()
  const agent = await agentToken(db)
  const server = await startServer({ TOOLGATE_DB: dbFile, TOOLGATE_API_KEY: key, ...runtimeEnv, ...opts.env })
  try {
    const names = Object.keys(opts.upstreams ?? {})
    for (const name of names) await addServer(db, { name, transport: opts.upstreams![name], trusted: true }, { actor: 'test' })
    await waitFor(`${names.join(', ')} ready`, () => names.every((name) => connectionState(db, name)?.state === 'ready'))
  } catch (e) {
    await server.stop()
    throw e
  }
  return { db, dbFile, server, agent }
}

/** An MCP client (the SDK's) on the gateway's /mcp with its agent token. */
export async function agentClient(g: Gateway, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${g.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${g.agent}` } } }))
  return client
}
