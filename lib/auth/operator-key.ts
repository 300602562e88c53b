import 'server-only'
import type { Db } from '@/db/client'
import { operatorKeyHash } from '@/db/queries/auth'
import { hashSecret, sameHash } from './secrets'

export function isOperatorKey(db: Db, presented: string): boolean {
  const stored = operatorKeyHash(db)
  return !!stored && sameHash(stored, hashSecret(presented))
}
