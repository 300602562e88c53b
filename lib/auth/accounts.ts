import 'server-only'
import { randomBytes } from 'node:crypto'
import type { Tx } from '@/db/client'
import type { Operator } from '@/db/schema'
import { bootstrapAdmin, insertOperator } from '@/db/queries/operators'
import { isRole, type AuthMethod, type Principal } from './roles'

export const newOperatorId = () => `op_${randomBytes(12).toString('base64url')}`

export const BOOTSTRAP_USERNAME = 'admin'

/** The account the break-glass key signs in as: made the first time it is needed. */
export function ensureBootstrapAdmin(tx: Tx, now = Date.now()): Operator {
  const found = bootstrapAdmin(tx)
  if (found) return found
  const row: Operator = { id: newOperatorId(), username: BOOTSTRAP_USERNAME, name: 'Bootstrap admin', email: null, role: 'admin', enabled: true, passwordHash: null, source: 'bootstrap', oidcSubject: null, createdAt: now }
  insertOperator(tx, row)
  return row
}

/** A person acting through `auth`; the break-glass key is on the record as `break-glass`, not as its account. */
export function principalOf(o: Operator, auth: AuthMethod, role = o.role): Principal {
  if (!isRole(role)) throw new Error(`operator ${o.username} has an unknown role "${role}"`)
  return { operatorId: o.id, username: o.username, name: o.name, role, auth, actor: auth === 'break-glass' ? 'break-glass' : o.username }
}

/** What a change made by `p` records about who made it. */
export const contextOf = (p: Principal, requestId?: string) => ({ actor: p.actor, operatorId: p.operatorId, auth: p.auth, ...(requestId ? { requestId } : {}) })
