import { MAX_NAME, MAX_TOOL_ID } from '@/lib/core/names'
import { quote } from '@/lib/core/log'

/** Tool ids one in-band check takes: a rider's tools, or describe_tool with check: true (fixed in extension v1). */
export const MAX_CHECK_IDS = 50

/** Tool ids are "<server>:<tool>", split at the first ':' (contract §1). */
export type ParsedId = { id: string; server: string; tool: string } | { id: string; malformed: true }

export function parseToolId(raw: string): ParsedId {
  const id = raw.trim()
  const at = id.indexOf(':')
  if (at < 0) return { id, malformed: true }
  const server = id.slice(0, at).trim()
  const tool = id.slice(at + 1).trim()
  if (!server || !tool) return { id, malformed: true }
  return { id, server, tool }
}

/** Trim, then de-duplicate keeping first-occurrence order. */
export function uniqueIds(raw: readonly string[]): string[] {
  return [...new Set(raw.map((r) => r.trim()))]
}

/**
 * Input bounds, a request error on every surface (nothing is evaluated or recorded): an id
 * over MAX_TOOL_ID characters, or one whose server half is over MAX_NAME. A malformed but
 * short id is not a request error: it is judged not_found (contract §1).
 */
export function idBoundsFault(raw: string): string | null {
  const id = raw.trim()
  if (id.length > MAX_TOOL_ID) return `tool id ${quote(id)} is ${id.length} characters long (max ${MAX_TOOL_ID})`
  const server = id.includes(':') ? id.slice(0, id.indexOf(':')).trim() : ''
  if (server.length > MAX_NAME) return `tool id ${quote(id)} names a server of ${server.length} characters (max ${MAX_NAME})`
  return null
}
