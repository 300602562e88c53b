import 'server-only'
import type { Db } from '@/db/client'
import { operatorKeyHash } from '@/db/queries/auth'
import { hashSecret, sameHash } from './secrets'

/** What the keys toolgate makes start with (TOOLGATE_API_KEY may be anything). */
export const OPERATOR_KEY_PREFIX = 'tg_op_'

export function isOperatorKey(db: Db, presented: string): boolean {
  const stored = operatorKeyHash(db)
  return !!stored && sameHash(stored, hashSecret(presented))
}
