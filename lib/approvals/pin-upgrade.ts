import { eq, not, like, and } from 'drizzle-orm'
import { transactionOn, type Db } from '@/db/client'
import { serverDefinitions, toolApprovals, tools, type ApprovedDefinition } from '@/db/schema'
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
  const current = `sha256/v${HASH_SCHEMA_VERSION}:%`
  const stale = db.select().from(tools).where(not(like(tools.hash, current))).all()
  // a server's instructions, prompts and resources: the same schema, re-pinned as they stand (approved ones stay approved)
  const definitions = db.select().from(serverDefinitions).where(not(like(serverDefinitions.hash, current))).all()
  if (stale.length === 0 && definitions.length === 0) return 0
  transactionOn(db, (tx) => {
    for (const d of definitions) {
      tx.update(serverDefinitions).set({ hash: definitionPin(d.kind, d.definition), approvedHash: d.approved && definitionPin(d.kind, d.approved) })
        .where(and(eq(serverDefinitions.serverName, d.serverName), eq(serverDefinitions.kind, d.kind), eq(serverDefinitions.key, d.key))).run()
    }
    const reset: string[] = []
    for (const t of stale) {
      const key = and(eq(toolApprovals.serverName, t.serverName), eq(toolApprovals.toolName, t.name))
      const hash = toolPin(definitionOf(t))
      tx.update(tools).set({ hash }).where(and(eq(tools.serverName, t.serverName), eq(tools.name, t.name))).run()
      const approval = tx.select().from(toolApprovals).where(key).get()
      if (!approval || approval.status === 'pending') continue
      let approved: ApprovedDefinition | null
      if (approval.status === 'changed') approved = approval.approved && { ...approvedOf(t), ...approval.approved }
      else if (approval.approvedHash === t.hash) approved = approvedOf(t)
      else {
        reset.push(`${t.serverName}:${t.name}`)
        tx.update(toolApprovals).set({ status: 'pending', approved: null, approvedHash: null }).where(key).run()
        continue
      }
      tx.update(toolApprovals).set({ approved, approvedHash: approved && toolPin({ name: t.name, ...approved }) }).where(key).run()
    }
    insertActivity(tx, {
      requestId: mintRequestId(), type: 'pins.upgraded', actor: 'toolgate',
      data: { tools: stale.length, ...(definitions.length ? { definitions: definitions.length } : {}), hash_schema: HASH_SCHEMA_VERSION, ...(reset.length ? { reset_to_pending: reset } : {}) },
    })
  }, 'immediate')
  return stale.length + definitions.length
}
