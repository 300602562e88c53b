import 'server-only'
import { eq, gt } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import type { Statement } from 'better-sqlite3'
import { operatorSessions, settings } from '@/db/schema'

const keyHashStatements = new WeakMap<DbLike['$client'], Statement>()

/** The stored hash of the operator key; null before one is set. Read on every operator request: prepared once. */
export function operatorKeyHash(db: DbLike): string | null {
  let st = keyHashStatements.get(db.$client)
  if (!st) keyHashStatements.set(db.$client, (st = db.$client.prepare('select operator_key_hash from settings where id = 1').pluck()))
  return (st.get() as string | null | undefined) ?? null
}

/** Store a new operator key hash, inside the caller's write transaction. */
export function setOperatorKeyHash(tx: Tx, hash: string): void {
  tx.update(settings).set({ operatorKeyHash: hash }).where(eq(settings.id, 1)).run()
}

export function sessionByHash(db: DbLike, idHash: string) {
  return db.select().from(operatorSessions).where(eq(operatorSessions.idHash, idHash)).get()
}

/** Sessions not past their absolute limit (idleness is judged by the caller). */
export function unexpiredSessions(db: DbLike, now: number) {
  return db.select().from(operatorSessions).where(gt(operatorSessions.expiresAt, now)).all()
}
