import 'server-only'
import type { Db, DbLike } from '@/db/client'
import { decideDefinition, knownDefinition } from '@/db/queries/definitions'
import type { ServerDefinition } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { badRequest, notFoundError } from '@/lib/core/errors'
import { definitionGroups, parseDefinitionId, type DefinitionGroup } from '@/lib/approvals/server-definitions'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'

/** The definition an operator names (a prompt `server:name`, a resource's toolgate URI, a server for its instructions), or the not-found error. */
export function requireDefinition(db: DbLike, group: DefinitionGroup, id: string): ServerDefinition {
  const g = definitionGroups[group]
  const parsed = parseDefinitionId(group, id)
  if (!parsed) throw badRequest(`"${id}" is not a ${g.noun} id: expected ${g.id}`)
  const d = knownDefinition(db, parsed.server, g.kinds, parsed.key)
  if (!d) throw notFoundError(`no ${g.noun} "${id}" is known to toolgate (toolgate ${group} list shows them)`)
  return d
}

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
