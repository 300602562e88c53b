'use server'

import 'server-only'
import { changeOperator, createPersonalToken, inviteOperator, revokePersonalToken } from '@/lib/admin/operators'
import { endSession } from '@/lib/auth/operator-sessions'
import { changeOperatorSchema, newOperatorSchema, personalTokenIdSchema, personalTokenSchema, sessionIdSchema } from '@/lib/schemas/operators'
import { operatorAction } from './safe-action'

/** Invite a person: their account and a one-time link (in this answer only). */
export const inviteOperatorAction = operatorAction('admin', newOperatorSchema, async (input, { db, by }) => {
  const r = await inviteOperator(db, input, by)
  return { username: r.operator.username, path: r.path, expiresAt: new Date(r.expiresAt).toISOString() }
}, { refresh: true })

export const changeOperatorAction = operatorAction('admin',
  changeOperatorSchema,
  async ({ username, ...change }, { db, by }) => (await changeOperator(db, username, change, by)).after, { refresh: true })

/** End a session: your own (any role), or anyone's (admin) — endSession decides. */
export const endSessionAction = operatorAction('view', sessionIdSchema,
  async ({ id }, { db, principal }) => endSession(db, principal, id), { refresh: true })

/** A personal access token for yourself (at most your role); the secret is in this answer only. */
export const createPersonalTokenAction = operatorAction('view', personalTokenSchema, async (input, { db, principal }) => {
  const r = await createPersonalToken(db, principal, input)
  return { id: r.id, token: r.token, role: r.role, expires_at: r.expires_at }
}, { refresh: true })

export const revokePersonalTokenAction = operatorAction('view', personalTokenIdSchema,
  async ({ id }, { db, principal }) => (await revokePersonalToken(db, principal, id)).id, { refresh: true })
