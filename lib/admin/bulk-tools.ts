import 'server-only'
import type { Db } from '@/db/client'
import type { ActionContext } from '@/lib/activity/record-change'
import type { BulkVerb } from '@/lib/schemas/actions'
import { changeToolsIn, type ToolVerb } from './tools'

const verbs = { approve: 'tool.approved', block: 'tool.blocked', enable: 'tool.enabled' } as const satisfies Record<BulkVerb, ToolVerb>

/**
 * Approve, block or unblock many tools as ONE transaction: all of them change, or none does.
 * Each still writes its own activity record with before/after. Approvals carry the pin each
 * definition had when the operator saw it; one that changed since refuses the whole batch.
 */
export function changeTools(db: Db, verb: BulkVerb, ids: readonly string[], ctx: ActionContext, opts: { hashes?: Readonly<Record<string, string>>; confirm?: boolean } = {}) {
  return changeToolsIn(db, verbs[verb], ids, ctx, opts)
}
