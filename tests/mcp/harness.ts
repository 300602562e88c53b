import { readFileSync } from 'node:fs'
import path from 'node:path'
import Ajv2020 from 'ajv/dist/2020'
import { eq } from 'drizzle-orm'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { expect } from 'vitest'
import type { Db } from '@/db/client'
import { activity } from '@/db/schema'
import { EXTENSION_ID, facetSchema, resolveFacetSchema } from '@/lib/schemas/extension'
import type { StateFileInput } from '@/lib/schemas/state'
import { demoStateFile, freshDb, load } from '@/tests/helpers/db'
import { DEMO_AGENT_TOKEN } from '@/lib/state/demo'
import { startServer, type RunningServer } from '@/tests/helpers/server'

export { EXTENSION_ID }
export const OPERATOR_KEY = 'tg_op_mcp_test_key_0123456789'
export const MODERN = '2026-07-28'
export const LEGACY = '2025-11-25'

export type State = Omit<StateFileInput, 'version'>
export const demoState = (): State => JSON.parse(readFileSync(demoStateFile(), 'utf8'))

export interface Harness { db: Db; file: string; server: RunningServer; mcp: string; reload: (s: State) => Promise<void> }

/**
 * /mcp answers agent tokens (contract §13): every test state carries the demo's all-servers
 * agent token, and the helpers below send it unless a test sends other credentials.
 */
export const AGENT = DEMO_AGENT_TOKEN
const withAgent = (s: State): State => ({
  ...s,
  agent_tokens: [...(s.agent_tokens ?? []).filter((t) => t.name !== 'demo-agent'), { name: 'demo-agent', token: AGENT, allowed_servers: ['*'], profile_pin: null }],
})

/** A temp SQLite file loaded with `state`, and the real app on loopback serving it. */
export async function startHarness(state: State, env: Record<string, string> = {}): Promise<Harness> {
  const { db, file } = freshDb()
  await load(db, withAgent(state))
  const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: OPERATOR_KEY, ...env })
  return { db, file, server, mcp: `${server.url}/mcp`, reload: (s) => load(db, withAgent(s)) }
}

// ---- raw JSON-RPC over HTTP ----------------------------------------------------------------

export interface RpcReply {
  status: number
  headers: Headers
  text: string
  // JSON-RPC bodies are read as plain JSON: the tests assert on their exact shape.
  body: { result?: Record<string, any>; error?: { code: number; message: string } } // eslint-disable-line @typescript-eslint/no-explicit-any
}

let nextId = 1

/** POST one JSON-RPC request as a 2026-07-28 client would (envelope, standard headers). */
export async function modernRpc(url: string, method: string, params: Record<string, unknown> = {}, opts: { declare?: boolean; headers?: Record<string, string | null> } = {}): Promise<RpcReply> {
  const meta = (params._meta ?? {}) as Record<string, unknown>
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'toolgate-tests', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': opts.declare === false ? {} : { extensions: { [EXTENSION_ID]: { version: 1 } } },
  }
  const headers: Record<string, string | null> = { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...opts.headers }
  if (method === 'tools/call' && typeof params.name === 'string') headers['mcp-name'] = params.name
  return rpc(url, { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { ...envelope, ...meta } } }, headers)
}

/** POST one JSON-RPC request as a stateless 2025-11-25 client would (no envelope). */
export function legacyRpc(url: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string | null> = {}): Promise<RpcReply> {
  return rpc(url, { jsonrpc: '2.0', id: nextId++, method, params }, { 'mcp-protocol-version': LEGACY, ...headers })
}

/** POST one JSON-RPC message, as the demo agent unless `headers` carries other credentials (null: none). */
export async function rpc(url: string, message: unknown, headers: Record<string, string | null> = {}): Promise<RpcReply> {
  const sent: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${AGENT}` }
  for (const [k, v] of Object.entries(headers)) {
    if (v === null) delete sent[k]
    else sent[k] = v
  }
  const res = await fetch(url, {
    method: 'POST',
    headers: sent,
    body: JSON.stringify(message),
  })
  const text = await res.text()
  const reply: RpcReply = { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : {} }
  // Every facet that crosses the wire in these tests is held to both schemas.
  const result = reply.body.result
  const facet = result?._meta?.[EXTENSION_ID]
  // tools/list carries the batch facet; a refused tools/call carries one per-tool verdict.
  if (facet !== undefined) (Array.isArray(result!.tools) ? expectValidFacet : expectValidResolveFacet)(facet)
  if (result?.tool?._meta?.[EXTENSION_ID] !== undefined) expectValidResolveFacet(result.tool._meta[EXTENSION_ID])
  return reply
}

export const rider = (ids: string[], extra: Record<string, unknown> = {}) => ({ _meta: { [EXTENSION_ID]: { tools: ids.map((id) => ({ id })), ...extra } } })

// ---- real SDK clients -------------------------------------------------------------------

/** The official 2.x client, pinned to 2026-07-28, declaring the extension unless told not to. */
export async function modernClient(url: string, opts: { token?: string; declare?: boolean } = {}): Promise<Client> {
  const token = opts.token ?? AGENT
  const client = new Client({ name: 'toolgate-tests', version: '1' }, {
    capabilities: opts.declare === false ? {} : { extensions: { [EXTENSION_ID]: { version: 1 } } },
    versionNegotiation: { mode: { pin: MODERN } },
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return client
}

/** The legacy 1.x client (2025-11-25), mirroring the experimental capability. */
export async function legacyClient(url: string, opts: { token?: string } = {}): Promise<LegacyClient> {
  const token = opts.token ?? AGENT
  const client = new LegacyClient({ name: 'toolgate-tests-legacy', version: '1' }, { capabilities: { experimental: { [EXTENSION_ID]: { version: 1 } } } })
  await client.connect(new LegacyTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return client
}

/**
 * Connect `client` (the legacy 1.x SDK, at 2025-11-25) with `token`: it opens its GET stream
 * itself once initialized, and this resolves once that stream answered.
 */
export async function connectWithStream(client: LegacyClient, url: string, token: string): Promise<void> {
  let opened!: () => void
  const open = new Promise<void>((r) => (opened = r))
  const watching: typeof fetch = async (input, init) => {
    const res = await fetch(input, init)
    if (init?.method === 'GET' && res.ok) opened()
    return res
  }
  await client.connect(new LegacyTransport(new URL(url), { fetch: watching, requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  await open
}

// ---- schema validation: the shared JSON Schema and toolgate's own copy --------------------

const sharedSchema = JSON.parse(readFileSync(path.resolve(__dirname, '../../docs/spec/required-tools-extension.schema.json'), 'utf8'))
// strictTypes off: the shared schema's allOf branches add `required` without restating `type`, which is valid 2020-12.
const ajv = new Ajv2020({ allErrors: true, strictTypes: false })
// RFC 3339 date-time, without pulling in a formats plugin the project does not depend on.
ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)))
ajv.addSchema(sharedSchema)
const def = (name: string) => ajv.getSchema(`${sharedSchema.$id}#/$defs/${name}`)!
export const sharedValidators = {
  responseFacet: def('responseFacet'),
  resolveFacet: def('resolveFacet'),
  requestRider: def('requestRider'),
  settings: def('settings'),
  wireReasons: sharedSchema.$defs.wireReason.enum as string[],
}

/** A Shape A facet must satisfy the shared schema and toolgate's own copy alike. */
export function expectValidFacet(facet: unknown): void {
  const ok = sharedValidators.responseFacet(facet)
  expect(sharedValidators.responseFacet.errors ?? [], JSON.stringify(facet)).toEqual([])
  expect(ok).toBe(true)
  expect(facetSchema.safeParse(facet).error?.issues ?? []).toEqual([])
}

export function expectValidResolveFacet(facet: unknown): void {
  const ok = sharedValidators.resolveFacet(facet)
  expect(sharedValidators.resolveFacet.errors ?? [], JSON.stringify(facet)).toEqual([])
  expect(ok).toBe(true)
  expect(resolveFacetSchema.safeParse(facet).error?.issues ?? []).toEqual([])
}

// ---- activity -------------------------------------------------------------------------------

export const recordsFor = (db: Db, requestId: string) => db.select().from(activity).where(eq(activity.requestId, requestId)).all()
export const activityCount = (db: Db) => db.select().from(activity).all().length

/** The raw bytes of the first `"key":[…]` array in a JSON text, matched bracket by bracket. */
export function rawArray(text: string, key: string): string {
  const start = text.indexOf(`"${key}":[`) + key.length + 3
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '[' || c === '{') depth++
    else if ((c === ']' || c === '}') && --depth === 0) return text.slice(start, i + 1)
  }
  throw new Error(`no complete "${key}" array in ${text.slice(0, 200)}`)
}
