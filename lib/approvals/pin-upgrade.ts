import { transactionOn, type Db } from '@/db/client'
import type { ApprovedDefinition } from '@/db/schema'
import { setDefinitionPins, setToolPin, stalePins, toolApprovalOf, updateApproval } from '@/db/queries/pins'
import { insertActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import { HASH_SCHEMA_VERSION, toolPin } from '@/lib/preflight/hash'
import { approvedOf, definitionOf } from '@/lib/core/definition'
import { definitionPin } from './server-definitions'

/**
 * Bring pins made under an older hash schema to the current one, once, when a database is
 * opened, and keep each approval's approved definition apart from the latest discovered one
 * (before v3 the tools row was both). A hash-schema change is not a rug-pull: a tool approved
 * as it stands stays approved (the tool as it stands is its approved definition, re-pinned),
 * a changed tool stays changed (its kept approved definition is re-pinned; fields the old
 * schema did not keep are taken as they stand), pending stays pending.
 *
 * One approval cannot be carried over honestly: an approved tool whose stored definition is
 * not the one its pin approved (an inspection before v3 overwrote it), since what was approved
 * is no longer known. It goes back to pending, named in the `pins.upgraded` record.
 */
export function upgradePins(db: Db): number {
  // a server's instructions, prompts and resources: the same schema, re-pinned as they stand (approved ones stay approved)
  const { tools: stale, definitions } = stalePins(db, `sha256/v${HASH_SCHEMA_VERSION}:`)
  if (stale.length === 0 && definitions.length === 0) return 0
  transactionOn(db, (tx) => {
    for (const d of definitions) {
      setDefinitionPins(tx, d, definitionPin(d.kind, d.definition), d.approved && definitionPin(d.kind, d.approved))
    }
    const reset: string[] = []
    for (const t of stale) {
      setToolPin(tx, t.serverName, t.name, toolPin(definitionOf(t)))
      const approval = toolApprovalOf(tx, t.serverName, t.name)
      if (!approval || approval.status === 'pending') continue
      let approved: ApprovedDefinition | null
      if (approval.status === 'changed') approved = approval.approved && { ...approvedOf(t), ...approval.approved }
      else if (approval.approvedHash === t.hash) approved = approvedOf(t)
      else {
        reset.push(`${t.serverName}:${t.name}`)
        updateApproval(tx, t.serverName, t.name, { status: 'pending', approved: null, approvedHash: null })
        continue
      }
      updateApproval(tx, t.serverName, t.name, { approved, approvedHash: approved && toolPin({ name: t.name, ...approved }) })
    }
    insertActivity(tx, {
      requestId: mintRequestId(), type: 'pins.upgraded', actor: 'toolgate',
      data: { tools: stale.length, ...(definitions.length ? { definitions: definitions.length } : {}), hash_schema: HASH_SCHEMA_VERSION, ...(reset.length ? { reset_to_pending: reset } : {}) },
    })
  }, 'immediate')
  return stale.length + definitions.length
}
