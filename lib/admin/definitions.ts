import 'server-only'
import type { Db } from '@/db/client'
import { decideDefinition } from '@/db/queries/definitions'
import { writeTransaction } from '@/db/write'
import { badRequest } from '@/lib/core/errors'
import type { DefinitionGroup } from '@/lib/approvals/server-definitions'
import { requireDefinition } from '@/lib/approvals/review'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'

/**
 * Approve a definition as its server offers it now — what the review showed: with `hash`, only
 * while it still has that pin. It becomes the approved definition, the only one agents are served.
 */
export function approveDefinition(db: Db, group: DefinitionGroup, id: string, ctx: ActionContext, opts: { hash?: string } = {}) {
  return writeTransaction(db, (tx) => {
    const d = requireDefinition(tx, group, id)
    if (opts.hash !== undefined && opts.hash !== d.hash) {
      throw badRequest(`${id} changed since it was shown (shown ${opts.hash}, now ${d.hash}): review it again, then approve`)
    }
    const now = Date.now()
    decideDefinition(tx, d, { status: 'approved', approved: d.definition, approvedHash: d.hash }, ctx.actor, now)
    const before = { status: d.status ?? 'undecided', pin: d.approvedHash }
    const after = { status: 'approved', pin: d.hash }
    return { id, kind: d.kind, before, after, ...recordChange(tx, 'definition.approved', ctx, { target: id, kind: d.kind, before, after, note: `approved pin ${d.hash}` }, { server: d.serverName, now }) }
  })
}
