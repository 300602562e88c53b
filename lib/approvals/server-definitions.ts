import { createHash } from 'node:crypto'
import type { DefinitionChange, DefinitionGroup, DefinitionKind, JsonObject } from '@/lib/core/definition'
import { canonicalJson, HASH_SCHEMA_VERSION } from '@/lib/preflight/hash'

/**
 * A server's instructions, prompts, resources and resource templates are reviewed, pinned and
 * approved as its tools are (docs/approvals.md): agents are served only the approved
 * definition, and a new or changed one waits for an operator. This module says how they are
 * named and pinned; discovery (lib/upstream/discovery.ts) applies the guard, lib/mcp serves them.
 */

/** One definition as the runtime lists it: the server's own names and URIs, every field as given. */
export interface DiscoveredDefinition { kind: DefinitionKind; key: string; definition: JsonObject }

/** A definition's pin (the same hash schema as a tool's): sha256 over its kind and everything it is served with. */
export function definitionPin(kind: DefinitionKind, definition: JsonObject): string {
  return `sha256/v${HASH_SCHEMA_VERSION}:${createHash('sha256').update(canonicalJson({ kind, definition })).digest('hex')}`
}

const SCHEME = 'toolgate://'

/** A server's URI as toolgate serves it: every URI it hands out reads back through it. */
export const toToolgateUri = (server: string, uri: string) => `${SCHEME}${server}/${uri}`

export function fromToolgateUri(uri: string): { server: string; uri: string } | undefined {
  if (!uri.startsWith(SCHEME)) return undefined
  const rest = uri.slice(SCHEME.length)
  const slash = rest.indexOf('/')
  return slash > 0 ? { server: rest.slice(0, slash), uri: rest.slice(slash + 1) } : undefined
}

/** What operators and agents call a definition: a prompt `server:name`, a resource or template its toolgate URI, instructions the server's name. */
export function definitionId(server: string, kind: DefinitionKind, key: string): string {
  switch (kind) {
    case 'instructions': return server
    case 'prompt': return `${server}:${key}`
    case 'resource': case 'resource_template': return toToolgateUri(server, key)
  }
}

/** The operator-facing groups (one CLI group each) and the kinds each covers. */
export const definitionGroups = {
  instructions: { kinds: ['instructions'], noun: 'server instructions', id: '<server>' },
  prompts: { kinds: ['prompt'], noun: 'prompt', id: '<server:prompt>' },
  resources: { kinds: ['resource', 'resource_template'], noun: 'resource or resource template', id: '<toolgate://server/uri>' },
} as const satisfies Record<DefinitionGroup, { kinds: readonly DefinitionKind[]; noun: string; id: string }>
export type { DefinitionGroup }

/** The group a kind is approved under. */
export const groupOf = (kind: DefinitionKind): DefinitionGroup =>
  kind === 'instructions' ? 'instructions' : kind === 'prompt' ? 'prompts' : 'resources'

/** The server and key an id names (for its group's kinds), or undefined when it is not such an id. */
export function parseDefinitionId(group: DefinitionGroup, id: string): { server: string; key: string } | undefined {
  if (group === 'instructions') return id.trim() ? { server: id.trim(), key: '' } : undefined
  if (group === 'prompts') {
    const at = id.indexOf(':')
    return at > 0 && at < id.length - 1 ? { server: id.slice(0, at), key: id.slice(at + 1) } : undefined
  }
  const parsed = fromToolgateUri(id)
  return parsed && { server: parsed.server, key: parsed.uri }
}

/** What changed, field by field (top-level fields, in the order they appear). */
export function definitionChanges(approved: JsonObject, offered: JsonObject): DefinitionChange[] {
  const fields = [...new Set([...Object.keys(approved), ...Object.keys(offered)])]
  return fields.filter((f) => canonicalJson(approved[f] ?? null) !== canonicalJson(offered[f] ?? null))
    .map((field) => ({ field, before: approved[field] ?? null, after: offered[field] ?? null }))
}
