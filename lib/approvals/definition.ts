import type { ApprovedDefinition, JsonObject, ToolAnnotations } from '@/db/schema'
import { changedFields, type Definition, type DefinitionField } from '@/lib/preflight/hash'

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

export interface FieldChange { field: DefinitionField; before: unknown; after: unknown }

/** What changed between the approved definition and the one now offered, field by field. */
export function definitionDiff(approved: ApprovedDefinition, current: ApprovedDefinition): FieldChange[] {
  const a = approved as Record<DefinitionField, unknown>
  const c = current as Record<DefinitionField, unknown>
  return changedFields(a, c).map((field) => ({ field, before: a[field] ?? null, after: c[field] ?? null }))
}
