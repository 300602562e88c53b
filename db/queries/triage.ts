import 'server-only'
import { eq } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { triageAcks, type TriageAck } from '@/db/schema'

/** Every acknowledged Overview item, by key. */
export function triageAckMap(db: DbLike): Map<string, TriageAck> {
  return new Map(db.select().from(triageAcks).all().map((a) => [a.key, a]))
}

export const triageAckOf = (db: DbLike, key: string): TriageAck | undefined => db.select().from(triageAcks).where(eq(triageAcks.key, key)).get()

/** Acknowledge (or snooze) an item, replacing an earlier acknowledgement of it. */
export function saveTriageAck(tx: Tx, ack: TriageAck): void {
  tx.insert(triageAcks).values(ack).onConflictDoUpdate({ target: triageAcks.key, set: { fingerprint: ack.fingerprint, until: ack.until, actor: ack.actor, at: ack.at } }).run()
}

export function deleteTriageAck(tx: Tx, key: string): void {
  tx.delete(triageAcks).where(eq(triageAcks.key, key)).run()
}
