import 'server-only'
import type { Tool } from '@modelcontextprotocol/server'
import { toolCursorSchema as cursorSchema } from '@/lib/schemas/mcp'
import { findServedTool, listServedTools, type ServedTool, type ToolKey } from '@/db/queries/served-tools'
import { readSnapshot } from '@/db/queries/preflight-state'
import type { Db } from '@/db/client'
import { wireOf } from '@/lib/core/definition'
import { badRequest, describeError, ToolgateError, unavailableError } from '@/lib/core/errors'
import { scopeOf, type Caller } from '@/lib/preflight/evaluate'
import { isCallable } from '@/lib/preflight/classifier'
import { MAX_CHECK_IDS, parseToolId } from '@/lib/preflight/ids'

/**
 * The served listing: what one session is offered on tools/list, through the same pages /mcp
 * serves (the MCP surface answers with it; the Surface report measures it).
 */

/** Who is listing: the caller and its path profile (an MCP session is one). */
export interface ListingSession {
  db: Db
  caller: Caller
  /** the /mcp/p/<profile> pin; narrows scope, never widens it */
  profile: string | undefined
}

/** describe_tool (contract §11): schemas for ≤ 5 served ids, or a verdict check for ≤ 50. */
export const DESCRIBE_TOOL = 'describe_tool'
export const MAX_DESCRIBE_IDS = 5

const policyProperties = {
  read_only_only: { type: 'boolean', description: 'only tools that declare readOnlyHint: true' },
  exclude_destructive: { type: 'boolean', description: 'exclude tools not declaring destructiveHint: false (read-only tools pass)' },
  exclude_open_world: { type: 'boolean', description: 'exclude tools not declaring openWorldHint: false' },
}

/** toolgate's own tool, always first on page one. */
export const describeToolDefinition: Tool = {
  name: DESCRIBE_TOOL,
  title: 'Describe or preflight tools',
  description:
    `Without check: the schemas of up to ${MAX_DESCRIBE_IDS} served tools. With check: true: a preflight of up to ${MAX_CHECK_IDS} `
    + 'tool ids (server:tool) from local proxy state only: per id ready, or unavailable with a reason, whether retrying helps, '
    + 'and the fix. Verdicts only; no upstream calls.',
  inputSchema: {
    type: 'object',
    properties: {
      tool_ids: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'tool ids, <server>:<tool>' },
      check: { type: 'boolean', description: 'evaluate availability instead of describing schemas' },
      filters: { type: 'object', properties: policyProperties, additionalProperties: false, description: 'annotation policy; only with check: true' },
    },
    required: ['tool_ids'],
    additionalProperties: false,
  },
  annotations: { title: 'Describe or preflight tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
}

/** Upstream tools per tools/list page; describe_tool rides on the first page in addition. */
export const PAGE_SIZE = 100

/**
 * A served tool as MCP lists it: `server:tool`, and every other field exactly as the upstream
 * gave it (the pin covers them all, so what an operator approved is what agents get).
 */
export function toMcpTool(t: ServedTool): Tool {
  // Stored as the upstream declared it, which the SDK's schemas accepted on the way in.
  return { ...wireOf(t), name: `${t.server}:${t.name}` } as Tool
}

/** Opaque to clients: the (server, tool) key the next page starts after. */
export const encodeCursor = (k: ToolKey) => Buffer.from(JSON.stringify([k.server, k.name])).toString('base64url')

function decodeCursor(cursor: string): ToolKey {
  try {
    const [server, name] = cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')))
    return { server, name }
  } catch {
    // a request fault: -32602 on the MCP surface
    throw badRequest(`invalid cursor "${cursor}": pass back a nextCursor exactly as received`)
  }
}

/** Reads for the listing surfaces: a failed read is an infrastructure error, never "no tools". */
function read<T>(session: ListingSession, fn: (inScope: (server: string) => boolean) => T): T {
  try {
    return readSnapshot(session.db, (state) => fn(scopeOf(state, session.caller, session.profile)))
  } catch (e) {
    if (e instanceof ToolgateError) throw e
    throw unavailableError(`proxy state could not be read: ${describeError(e)}`)
  }
}

/** One tools/list page for this session; the same request always yields the same bytes. */
export function listPage(session: ListingSession, cursor: string | undefined): { tools: Tool[]; nextCursor?: string } {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  const page = read(session, (inScope) => listServedTools(session.db, { inScope, callable: isCallable, after, limit: PAGE_SIZE }))
  const tools = page.tools.map(toMcpTool)
  const last = page.tools.at(-1)
  return {
    tools: after === undefined ? [describeToolDefinition, ...tools] : tools,
    ...(page.more && last ? { nextCursor: encodeCursor(last) } : {}),
  }
}

/** Every tools/list page for this session, followed to the end: the whole listing. */
export function allTools(session: ListingSession): Tool[] {
  const all: Tool[] = []
  let cursor: string | undefined
  do {
    const page = listPage(session, cursor)
    all.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return all
}

/** The served tool named `name` (as listed: `server:tool`), or undefined when not served here. */
export function servedTool(session: ListingSession, name: string): ServedTool | undefined {
  const parsed = parseToolId(name)
  // Served names are exact; a near-miss spelling is not the same tool.
  if ('malformed' in parsed || `${parsed.server}:${parsed.tool}` !== name) return undefined
  return read(session, (inScope) => findServedTool(session.db, inScope, isCallable, { server: parsed.server, name: parsed.tool }))
}
