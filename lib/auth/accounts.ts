import 'server-only'
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { Tx } from '@/db/client'
import type { Operator } from '@/db/schema'
import { bootstrapAdmin, insertOperator } from '@/db/queries/operators'
import { ROLES, isRole, type AuthMethod, type Principal } from './roles'

/** Names the activity log already uses for non-people: no account may take them. */
const RESERVED = new Set(['operator', 'runtime', 'anonymous', 'break-glass', 'toolgate', 'surface', 'system'])

export const usernameSchema = z.string().trim().toLowerCase()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a username is 1–63 of a-z, 0-9, ".", "_", "-", starting with a letter or digit')
  .refine((u) => !RESERVED.has(u), { message: 'that username is reserved (the activity log uses it for something else)' })
export const roleSchema = z.enum(ROLES, { message: `a role is one of ${ROLES.join(', ')}` })
export const emailSchema = z.string().trim().toLowerCase().email('an e-mail address looks like name@example.com').max(254)
export const displayNameSchema = z.string().trim().min(1, 'give the person a name').max(120)

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
