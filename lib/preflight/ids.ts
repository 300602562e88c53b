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
