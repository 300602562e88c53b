import type { ApprovedDefinition, DefinitionField, FieldChange } from '@/lib/core/definition'
import { changedFields } from '@/lib/preflight/hash'

/** What changed between the approved definition and the one now offered, field by field. */
export function definitionDiff(approved: ApprovedDefinition, current: ApprovedDefinition): FieldChange[] {
  const a = approved as Record<DefinitionField, unknown>
  const c = current as Record<DefinitionField, unknown>
  return changedFields(a, c).map((field) => ({ field, before: a[field] ?? null, after: c[field] ?? null }))
}
