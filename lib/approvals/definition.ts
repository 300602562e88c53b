import type { ApprovedDefinition, JsonObject, ToolAnnotations } from '@/db/schema'
import { canonicalJson, changedFields, type Definition, type DefinitionField } from '@/lib/preflight/hash'

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
}

/** A stored tool's definition by the state file's names, absent fields omitted: what approvals keep, pins hash and diffs compare. */
export function definitionOf(t: StoredDefinition): Definition & ApprovedDefinition {
  return {
    name: t.name,
    ...(t.title !== null ? { title: t.title } : {}),
    ...(t.description !== null ? { description: t.description } : {}),
    input_schema: t.inputSchema,
    ...(t.outputSchema !== null ? { output_schema: t.outputSchema } : {}),
    ...(t.annotations !== null ? { annotations: t.annotations } : {}),
    ...(t.execution !== null ? { execution: t.execution } : {}),
    ...(t.icons !== null ? { icons: t.icons } : {}),
  }
}

/** The approved definition without its name: what an approval record keeps for the diff. */
export function approvedOf(t: StoredDefinition): ApprovedDefinition {
  const { name: _name, ...rest } = definitionOf(t)
  return rest
}

export interface FieldChange { field: DefinitionField; before: unknown; after: unknown }

/** What changed between the approved definition and the one now offered, field by field. */
export function definitionDiff(approved: ApprovedDefinition, current: ApprovedDefinition): FieldChange[] {
  const a = approved as Record<DefinitionField, unknown>
  const c = current as Record<DefinitionField, unknown>
  return changedFields(a, c).map((field) => ({ field, before: a[field] ?? null, after: c[field] ?? null }))
}

/** Whether two definitions serve the same bytes (canonically). */
export const sameDefinition = (a: ApprovedDefinition, b: ApprovedDefinition) => canonicalJson(a) === canonicalJson(b)
