import 'server-only'
import { eq, gt } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
import { operatorSessions, settings } from '@/db/schema'

/** The stored hash of the operator key; null before one is set. */
export function operatorKeyHash(db: DbLike): string | null {
  return db.select({ h: settings.operatorKeyHash }).from(settings).where(eq(settings.id, 1)).get()?.h ?? null
}

export function sessionByHash(db: DbLike, idHash: string) {
  return db.select().from(operatorSessions).where(eq(operatorSessions.idHash, idHash)).get()
}

/** Sessions not past their absolute limit (idleness is judged by the caller). */
export function unexpiredSessions(db: DbLike, now: number) {
  return db.select().from(operatorSessions).where(gt(operatorSessions.expiresAt, now)).all()
}
