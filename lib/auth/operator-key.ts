import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { settings } from '../../db/schema'
import { hashSecret, newSecret, sameHash } from './secrets'

/**
 * Make sure an operator key exists. TOOLGATE_API_KEY wins (its hash is stored); otherwise a
 * key is generated once. Returns the key only when it was just generated, so it can be
 * printed exactly once; only its hash is kept.
 */
export function ensureOperatorKey(db: Db, fromEnv = process.env.TOOLGATE_API_KEY): string | undefined {
  const stored = db.select({ h: settings.operatorKeyHash }).from(settings).where(eq(settings.id, 1)).get()?.h
  if (fromEnv) {
    const h = hashSecret(fromEnv)
    if (stored !== h) db.update(settings).set({ operatorKeyHash: h }).where(eq(settings.id, 1)).run()
    return undefined
  }
  if (stored) return undefined
  return rotateOperatorKey(db)
}

/** Replace the operator key; returns the new key (shown once). */
export function rotateOperatorKey(db: Db): string {
  const key = newSecret('tg_op_')
  db.update(settings).set({ operatorKeyHash: hashSecret(key) }).where(eq(settings.id, 1)).run()
  return key
}

export function isOperatorKey(db: Db, presented: string): boolean {
  const stored = db.select({ h: settings.operatorKeyHash }).from(settings).where(eq(settings.id, 1)).get()?.h
  return !!stored && sameHash(stored, hashSecret(presented))
}
