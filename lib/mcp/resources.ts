import 'server-only'
import { ResourceNotFoundError, type ProtocolError, type GetPromptResult, type ListPromptsResult, type ListResourcesResult, type ListResourceTemplatesResult, type ReadResourceResult } from '@modelcontextprotocol/server'
import { readSnapshot } from '@/db/queries/preflight-state'
import { classifyServer } from '@/lib/preflight/classifier'
import { scopeOf } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'
import { runningSupervisor } from '@/lib/upstream/supervisor'
import type { UpstreamConnection } from '@/lib/upstream/connection'
import type { McpContext } from './context'
import { invalidParams } from './errors'

/**
 * The upstreams' resources and prompts, served under toolgate's names: a prompt as
 * `server:prompt`, a resource as `toolgate://<server>/<its own URI>`. Every URI toolgate hands
 * out — in listings, reads, prompts and tool results — is mapped this way, so a resource_link a
 * tool returns can be read back through toolgate. A server's resources and prompts are served
 * under the same server gates and scope as its tools: in scope, enabled, released, connected.
 */
const SCHEME = 'toolgate://'
const REQUEST_TIMEOUT_MS = 30_000
const MAX_PAGES = 20

export const toToolgateUri = (server: string, uri: string) => `${SCHEME}${server}/${uri}`

export function fromToolgateUri(uri: string): { server: string; uri: string } | undefined {
  if (!uri.startsWith(SCHEME)) return undefined
  const rest = uri.slice(SCHEME.length)
  const slash = rest.indexOf('/')
  return slash > 0 ? { server: rest.slice(0, slash), uri: rest.slice(slash + 1) } : undefined
}

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A content block with its resource URIs mapped (resource_link, embedded resource). */
export function mapContent(server: string, block: unknown): unknown {
  if (!isObject(block)) return block
  if (block.type === 'resource_link' && typeof block.uri === 'string') return { ...block, uri: toToolgateUri(server, block.uri) }
  if (block.type === 'resource' && isObject(block.resource) && typeof block.resource.uri === 'string') {
    return { ...block, resource: { ...block.resource, uri: toToolgateUri(server, block.resource.uri) } }
  }
  return block
}

/** The servers this session may reach for resources and prompts, with their live connections. */
function reachable(session: McpContext): { server: string; conn: UpstreamConnection }[] {
  const supervisor = runningSupervisor()
  if (!supervisor) return []
  const names = readSnapshot(session.db, (state) => {
    const inScope = scopeOf(state, session.caller, session.profile)
    return supervisor.connectedServers().filter((n) => inScope(n) && classifyServer(state.server(n)) === 'ok')
  })
  return names.sort().flatMap((server) => {
    const conn = supervisor.connection(server)
    return conn ? [{ server, conn }] : []
  })
}

function reach(session: McpContext, server: string, notFound: () => ProtocolError): UpstreamConnection {
  const hit = reachable(session).find((r) => r.server === server)
  if (!hit) throw notFound()
  return hit.conn
}

/** Every page of one listing from every reachable server that offers it; a failing server is left out. */
async function gather(session: McpContext, kind: 'resources' | 'prompts', method: 'resources/list' | 'resources/templates/list' | 'prompts/list', key: string, map: (server: string, item: Json) => Json): Promise<Json[]> {
  const lists = await Promise.all(reachable(session).filter((r) => r.conn.offers[kind]).map(async ({ server, conn }) => {
    const items: Json[] = []
    let cursor: unknown
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const r = await conn.request(method, cursor === undefined ? {} : { cursor }, REQUEST_TIMEOUT_MS)
        for (const item of Array.isArray(r[key]) ? r[key] : []) if (isObject(item)) items.push(map(server, item))
        cursor = r.nextCursor
        if (typeof cursor !== 'string') break
      }
    } catch (e) {
      console.error(`toolgate: ${method} on ${server} failed (left out of the listing): ${e instanceof Error ? e.message : String(e)}`)
    }
    return items
  }))
  return lists.flat()
}

// Upstream results pass through as the upstreams gave them (only names and URIs mapped): the
// casts below state what MCP servers send, which toolgate does not reshape.
export const listResources = async (session: McpContext) =>
  ({ resources: await gather(session, 'resources', 'resources/list', 'resources', (server, r) => ({ ...r, uri: toToolgateUri(server, String(r.uri)) })) }) as ListResourcesResult

export const listResourceTemplates = async (session: McpContext) =>
  ({ resourceTemplates: await gather(session, 'resources', 'resources/templates/list', 'resourceTemplates', (server, t) => ({ ...t, uriTemplate: toToolgateUri(server, String(t.uriTemplate)) })) }) as ListResourceTemplatesResult

export async function readResource(session: McpContext, uri: string): Promise<ReadResourceResult> {
  // the same answer for a resource that does not exist and one this session may not see
  const notFound = () => new ResourceNotFoundError(uri)
  const target = fromToolgateUri(uri)
  if (!target) throw notFound()
  const conn = reach(session, target.server, notFound)
  const r = await conn.request('resources/read', { uri: target.uri }, REQUEST_TIMEOUT_MS)
  const contents = Array.isArray(r.contents) ? r.contents.map((c) => (isObject(c) && typeof c.uri === 'string' ? { ...c, uri: toToolgateUri(target.server, c.uri) } : c)) : []
  return { ...r, contents } as ReadResourceResult
}

export const listPrompts = async (session: McpContext) =>
  ({ prompts: await gather(session, 'prompts', 'prompts/list', 'prompts', (server, p) => ({ ...p, name: `${server}:${String(p.name)}` })) }) as ListPromptsResult

export async function getPrompt(session: McpContext, name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
  const parsed = parseToolId(name)
  const unknown = () => invalidParams(`Unknown prompt: "${name}"`)
  if ('malformed' in parsed) throw unknown()
  const conn = reach(session, parsed.server, unknown)
  const r = await conn.request('prompts/get', { name: parsed.tool, ...(args ? { arguments: args } : {}) }, REQUEST_TIMEOUT_MS)
  const messages = Array.isArray(r.messages) ? r.messages.map((m) => (isObject(m) ? { ...m, content: mapContent(parsed.server, m.content) } : m)) : []
  return { ...r, messages } as GetPromptResult
}

/** The upstreams' own instructions, labelled per server, for the servers this session may reach. */
export function upstreamInstructions(session: McpContext): string {
  return reachable(session).flatMap(({ server, conn }) => {
    const text = conn.offers.instructions?.trim()
    return text ? [`[${server}] ${text}`] : []
  }).join('\n\n')
}
