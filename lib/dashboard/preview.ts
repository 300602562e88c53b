import 'server-only'
import { mintRequestId } from '@/lib/activity/request-id'
import { badRequest, ToolgateError } from '@/lib/core/errors'
import { EXTENSION_ID } from '@/lib/schemas/extension'
import type { Era } from '@/lib/mcp/server'
import type { McpContext } from '@/lib/mcp/context'
import { answerMcp } from '@/lib/mcp/http'
import { mcpCaller } from '@/lib/auth/caller'
import type { Caller } from '@/lib/preflight/evaluate'
import { getDb } from '@/db/client'
import { profileServers } from '@/db/queries/access'
import { callerFor } from './preflight'
import type { PreviewInput } from '@/lib/schemas/dashboard'

export const PROTOCOLS = { modern: '2026-07-28', legacy: '2025-11-25' } as const


export interface Exchange { endpoint: string; headers: Record<string, string>; request: string; status: number; response: string }

/**
 * Each preview runs the REAL MCP server code (lib/mcp buildMcpServer behind the SDK's own
 * transports, configured as lib/mcp/http.ts configures them) on a session marked not to record:
 * the answer is exactly what /mcp would send for this state, and it writes nothing, so it holds
 * no lock while it awaits.
 */
/** The JSON-RPC request a client would send, with the era's envelope and headers. */
function rpcRequest(era: Era, id: number, method: string, params: Record<string, unknown>): { headers: Record<string, string>; body: Record<string, unknown> } {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOLS[era] }
  if (era === 'legacy') return { headers, body: { jsonrpc: '2.0', id, method, params } }
  headers['mcp-method'] = method
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOLS.modern,
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXTENSION_ID]: { version: 1 } } },
  }
  const meta = (params._meta ?? {}) as Record<string, unknown>
  return { headers, body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...envelope, ...meta } } } }
}

/**
 * Shape A (tools/list with the rider) and Shape B (tools/resolve of one id), exactly as /mcp
 * answers them right now for this token (the MCP surface is always the agent tier) or for a
 * loopback client without one, and path profile — without a record.
 */
export interface Preview {
  shapeA: Exchange | null
  shapeB: Exchange | null
  /** /mcp refuses this client (401) before it reads a request: there is no exchange to show, only why */
  refused?: string
}

export async function previewMcp(input: PreviewInput, operator: string): Promise<Preview> {
  const db = getDb()
  let caller: Caller | { refused: string }
  try {
    caller = input.token === null ? mcpCaller(db, { get: () => null }, '127.0.0.1') : callerFor(db, input.token, operator)
  } catch (e) {
    if (!(e instanceof ToolgateError) || e.kind !== 'unauthorized') throw e
    caller = { refused: e.message }
  }
  if (input.profile !== null && profileServers(db, input.profile) === undefined) throw badRequest(`unknown profile "${input.profile}"`)
  // Without a token (and no anonymous profile) /mcp answers every request 401: said once, plainly,
  // instead of two exchanges that read as errors of the page
  if ('refused' in caller) {
    return { shapeA: null, shapeB: null, refused: input.token === null
      ? 'An MCP client without an agent token is answered 401 (no anonymous profile is set), so there is no facet to show. Choose a token above to see what /mcp answers it.'
      : `/mcp answers 401 to token "${input.token}": ${caller.refused}` }
  }
  const endpoint = input.profile === null ? '/mcp' : `/mcp/p/${encodeURIComponent(input.profile)}`
  const auth: Record<string, string> = input.token === null ? {} : { authorization: `Bearer <token “${input.token}”>` }
  const exchange = async (method: string, params: Record<string, unknown>, id: number): Promise<Exchange> => {
    const { headers, body } = rpcRequest(input.era, id, method, params)
    const request = JSON.stringify(body)
    const session: McpContext = { db, caller, profile: input.profile ?? undefined, requestId: mintRequestId(), record: false }
    const res = await answerMcp(session, new Request(`http://preview${endpoint}`, { method: 'POST', headers, body: request }), body)
    return { endpoint, headers: { ...headers, ...auth }, request, status: res.status, response: await res.text() }
  }
  const policy = Object.fromEntries(Object.entries(input.policy).filter(([, v]) => v))
  const ids = input.ids.map((s) => s.trim()).filter(Boolean)
  const shapeA = ids.length
    ? await exchange('tools/list', { _meta: { [EXTENSION_ID]: { tools: ids.map((id) => ({ id })), ...(Object.keys(policy).length ? { policy } : {}) } } }, 1)
    : null
  const shapeB = input.resolve ? await exchange('tools/resolve', { name: input.resolve, arguments: {} }, 2) : null
  return { shapeA, shapeB }
}
