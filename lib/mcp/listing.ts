import 'server-only'
import type { Tool } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { findServedTool, listServedTools, type ServedTool, type ToolKey } from '@/db/queries/served-tools'
import { readSnapshot } from '@/db/queries/preflight-state'
import { describeError, ToolgateError, unavailableError } from '@/lib/core/errors'
import { scopeOf } from '@/lib/preflight/evaluate'
import { isCallable } from '@/lib/preflight/classifier'
import { parseToolId } from '@/lib/preflight/ids'
import { describeToolDefinition } from './describe-tool-definition'
import { invalidParams } from './errors'
import type { McpContext } from './context'

/** Upstream tools per tools/list page; describe_tool rides on the first page in addition. */
export const PAGE_SIZE = 100

/**
 * A served tool as MCP lists it: `server:tool`, and every other field exactly as the upstream
 * gave it (the pin covers them all, so what an operator approved is what agents get).
 */
export function toMcpTool(t: ServedTool): Tool {
  return {
    name: `${t.server}:${t.name}`,
    ...(t.title !== null ? { title: t.title } : {}),
    ...(t.description !== null ? { description: t.description } : {}),
    // Stored as the upstream declared it; MCP upstreams always declare an object schema.
    inputSchema: t.inputSchema as Tool['inputSchema'],
    ...(t.outputSchema ? { outputSchema: t.outputSchema as Tool['outputSchema'] } : {}),
    ...(t.annotations ? { annotations: t.annotations } : {}),
    ...(t.execution ? { execution: t.execution as Tool['execution'] } : {}),
    ...(t.icons ? { icons: t.icons as Tool['icons'] } : {}),
    ...(t.meta ? { _meta: t.meta } : {}),
  }
}

const cursorSchema = z.tuple([z.string(), z.string()])

/** Opaque to clients: the (server, tool) key the next page starts after. */
export const encodeCursor = (k: ToolKey) => Buffer.from(JSON.stringify([k.server, k.name])).toString('base64url')

function decodeCursor(cursor: string): ToolKey {
  try {
    const [server, name] = cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')))
    return { server, name }
  } catch {
    throw invalidParams(`invalid cursor "${cursor}": pass back a nextCursor exactly as received`)
  }
}

/** Reads for the listing surfaces: a failed read is an infrastructure error, never "no tools". */
function read<T>(session: McpContext, fn: (inScope: (server: string) => boolean) => T): T {
  try {
    return readSnapshot(session.db, (state) => fn(scopeOf(state, session.caller, session.profile)))
  } catch (e) {
    if (e instanceof ToolgateError) throw e
    throw unavailableError(`proxy state could not be read: ${describeError(e)}`)
  }
}

/** One tools/list page for this session; the same request always yields the same bytes. */
export function listPage(session: McpContext, cursor: string | undefined): { tools: Tool[]; nextCursor?: string } {
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
export function allTools(session: McpContext): Tool[] {
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
export function servedTool(session: McpContext, name: string): ServedTool | undefined {
  const parsed = parseToolId(name)
  // Served names are exact; a near-miss spelling is not the same tool.
  if ('malformed' in parsed || `${parsed.server}:${parsed.tool}` !== name) return undefined
  return read(session, (inScope) => findServedTool(session.db, inScope, isCallable, { server: parsed.server, name: parsed.tool }))
}
