// the ground floor's definition shapes: db/schema stores them, approvals review them, the
// activity vocabulary records them (lib/preflight/hash.ts pins them)
import type { ToolAnnotations } from './state'

export type JsonObject = Record<string, unknown>

/** A definition as approvals keep it (the state file's names): any served field may appear. */
export interface ApprovedDefinition {
  title?: string | null
  description?: string | null
  input_schema?: JsonObject
  output_schema?: JsonObject | null
  annotations?: ToolAnnotations | null
  execution?: JsonObject | null
  icons?: unknown[] | null
  _meta?: JsonObject | null
}

/** A stored tool's served fields (the tools table's names). */
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

/** A stored tool's definition by the state file's names, absent fields omitted: what approvals keep, pins hash and diffs compare. */
export function definitionOf(t: StoredDefinition): { name: string } & ApprovedDefinition {
  return {
    name: t.name,
    ...(t.title !== null ? { title: t.title } : {}),
    ...(t.description !== null ? { description: t.description } : {}),
    input_schema: t.inputSchema,
    ...(t.outputSchema !== null ? { output_schema: t.outputSchema } : {}),
    ...(t.annotations !== null ? { annotations: t.annotations } : {}),
    ...(t.execution !== null ? { execution: t.execution } : {}),
    ...(t.icons !== null ? { icons: t.icons } : {}),
    ...(t.meta !== null ? { _meta: t.meta } : {}),
  }
}

/** The definition without its name: what an approval record keeps as the approved one. */
export function approvedOf(t: StoredDefinition): ApprovedDefinition {
  const { name: _name, ...rest } = definitionOf(t)
  return rest
}

/** An approved definition back in the tools table's names (definitionOf's inverse): what is served of it. */
export function storedOf(name: string, d: ApprovedDefinition): StoredDefinition {
  return {
    name, title: d.title ?? null, description: d.description ?? null, inputSchema: d.input_schema ?? {}, outputSchema: d.output_schema ?? null,
    annotations: d.annotations ?? null, execution: d.execution ?? null, icons: d.icons ?? null, meta: d._meta ?? null,
  }
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

/** The review findings' codes (lib/approvals/findings.ts says what each means). */
export const findingCodes = ['hidden_characters', 'instruction_like', 'sensitive_path', 'cross_server_reference', 'long_description', 'widened_reach'] as const
export type FindingCode = (typeof findingCodes)[number]

export interface Finding {
  code: FindingCode
  /** where in the definition: description, title, input_schema.properties.x.description, … */
  field: string
  message: string
}
