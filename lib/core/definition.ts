// the ground floor's definition shapes: db/schema stores them, approvals review them, the
// activity vocabulary records them (lib/preflight/hash.ts pins them)
import type { ToolAnnotations } from './state'

export type JsonObject = Record<string, unknown>

/**
 * A stored tool's served fields (the tools table's names): the one declaration of a tool
 * definition's shape. The served listing, the known tools and discovery extend it; the state
 * file's names (approvals, pins, diffs) and MCP's wire names are derived from it below.
 */
export interface StoredDefinition {
  name: string
  title: string | null
  description: string | null
  inputSchema: JsonObject
  outputSchema: JsonObject | null
  annotations: ToolAnnotations | null
  execution: JsonObject | null
  icons: unknown[] | null
  meta: JsonObject | null
}

type Served = Omit<StoredDefinition, 'name'>

/** Each served field's name in the state file, which approvals keep, pins hash and diffs compare (in that order). */
const approvedNames = {
  title: 'title', description: 'description', inputSchema: 'input_schema', outputSchema: 'output_schema',
  annotations: 'annotations', execution: 'execution', icons: 'icons', meta: '_meta',
} as const satisfies { [K in keyof Served]: string }

/** Each served field's name on MCP's wire (a tools/list entry): the stored one, but `_meta`. */
const wireNames = {
  title: 'title', description: 'description', inputSchema: 'inputSchema', outputSchema: 'outputSchema',
  annotations: 'annotations', execution: 'execution', icons: 'icons', meta: '_meta',
} as const satisfies { [K in keyof Served]: string }

const servedKeys = Object.keys(approvedNames) as (keyof Served)[]

/** Every field the proxy serves of a tool besides its name, by the state file's names (the pin covers them all). */
export const definitionFields = servedKeys.map((k) => approvedNames[k])
export type DefinitionField = (typeof approvedNames)[keyof Served]

/** A definition as approvals keep it (the state file's names): any served field may appear. */
export type ApprovedDefinition = { [K in keyof Served as (typeof approvedNames)[K]]?: Served[K] }

/** A tool as MCP's tools/list carries it: absent fields omitted, never null. */
export type WireDefinition = Pick<StoredDefinition, 'name' | 'inputSchema'>
  & { [K in Exclude<keyof Served, 'inputSchema'> as (typeof wireNames)[K]]?: NonNullable<Served[K]> }

/** A stored definition under other names, absent (null) fields omitted, in the served fields' order. */
function renamed(t: StoredDefinition, names: { [K in keyof Served]: string }): { name: string } & Record<string, unknown> {
  const out: { name: string } & Record<string, unknown> = { name: t.name }
  for (const k of servedKeys) if (t[k] !== null) out[names[k]] = t[k]
  return out
}

/** A definition under other names back in the tools table's names, absent fields null. */
function stored(name: string, d: Record<string, unknown>, names: { [K in keyof Served]: string }): StoredDefinition {
  const out = { name } as Record<string, unknown>
  for (const k of servedKeys) out[k] = d[names[k]] ?? null
  return { ...out, inputSchema: d[names.inputSchema] ?? {} } as StoredDefinition
}

/** A stored tool's definition by the state file's names, absent fields omitted: what approvals keep, pins hash and diffs compare. */
export function definitionOf(t: StoredDefinition): { name: string } & ApprovedDefinition {
  return renamed(t, approvedNames)
}

/** The definition without its name: what an approval record keeps as the approved one. */
export function approvedOf(t: StoredDefinition): ApprovedDefinition {
  const { name: _name, ...rest } = definitionOf(t)
  return rest
}

/** An approved definition back in the tools table's names (definitionOf's inverse): what is served of it. */
export function storedOf(name: string, d: ApprovedDefinition): StoredDefinition {
  return stored(name, d, approvedNames)
}

/** A stored tool as MCP's tools/list carries it: every field exactly as its upstream gave it. */
export function wireOf(t: StoredDefinition): WireDefinition {
  return renamed(t, wireNames) as WireDefinition
}

/** A tools/list entry in the tools table's names (wireOf's inverse): what discovery stores. */
export function storedOfWire(t: WireDefinition): StoredDefinition {
  return stored(t.name, t, wireNames)
}

/** One served field of a tool that differs between the approved definition and the one offered now. */
export interface FieldChange { field: keyof ApprovedDefinition; before: unknown; after: unknown }

/** One field that differs between a server's approved definition (instructions, prompt, resource…) and the one offered now. */
export interface DefinitionChange { field: string; before: unknown; after: unknown }

/**
 * What a server gives agents besides its tools, each under the same review, pin and approval
 * as a tool: its instructions (initialize), its prompts (prompts/list), its resources
 * (resources/list) and resource templates (resources/templates/list).
 */
export const definitionKinds = ['instructions', 'prompt', 'resource', 'resource_template'] as const
export type DefinitionKind = (typeof definitionKinds)[number]
/** The operator-facing groups they are approved in (lib/approvals/server-definitions.ts definitionGroups: the kinds each covers). */
export const definitionGroupNames = ['instructions', 'prompts', 'resources'] as const
export type DefinitionGroup = (typeof definitionGroupNames)[number]

/** The review findings' codes (lib/approvals/findings.ts says what each means). */
export const findingCodes = ['hidden_characters', 'instruction_like', 'sensitive_path', 'cross_server_reference', 'long_description', 'widened_reach'] as const
export type FindingCode = (typeof findingCodes)[number]

export interface Finding {
  code: FindingCode
  /** where in the definition: description, title, input_schema.properties.x.description, … */
  field: string
  message: string
}
