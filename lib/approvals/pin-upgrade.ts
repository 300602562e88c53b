import { eq, not, like, and } from 'drizzle-orm'
import { transactionOn, type Db } from '@/db/client'
import { toolApprovals, tools } from '@/db/schema'
import { insertActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import { HASH_SCHEMA_VERSION, toolPin } from '@/lib/preflight/hash'
import { definitionOf } from './definition'

/**
 * Bring pins made under an older hash schema to the current one, once, when a database is
 * opened. A hash-schema change is not a rug-pull: a tool approved as it stands stays approved
 * (its approved pin is recomputed), a changed tool stays changed (its kept approved definition
 * is re-pinned; fields the old schema did not keep are taken as they stand), pending stays pending.
 */
export function upgradePins(db: Db): number {
  const current = `sha256/v${HASH_SCHEMA_VERSION}:%`
  const stale = db.select().from(tools).where(not(like(tools.hash, current))).all()
  if (stale.length === 0) return 0
  transactionOn(db, (tx) => {
    for (const t of stale) {
      const definition = definitionOf(t)
      const hash = toolPin(definition)
      tx.update(tools).set({ hash }).where(and(eq(tools.serverName, t.serverName), eq(tools.name, t.name))).run()
      const approval = tx.select().from(toolApprovals).where(and(eq(toolApprovals.serverName, t.serverName), eq(toolApprovals.toolName, t.name))).get()
      if (!approval || approval.status === 'pending') continue
      const approvedHash = approval.status === 'changed' && approval.previous ? toolPin({ ...definition, ...approval.previous }) : hash
      tx.update(toolApprovals).set({ approvedHash }).where(and(eq(toolApprovals.serverName, t.serverName), eq(toolApprovals.toolName, t.name))).run()
    }
    insertActivity(tx, { requestId: mintRequestId(), type: 'pins.upgraded', actor: 'toolgate', data: { tools: stale.length, hash_schema: HASH_SCHEMA_VERSION } })
  }, 'immediate')
  return stale.length
}
