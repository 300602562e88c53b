'use server'

import 'server-only'
import { createProfile, deleteProfile, updateProfile } from '@/lib/admin/profiles'
import { newTokenSchema, profileInputSchema, profileSchema, rotateTokenSchema, tokenExpiryInputSchema, tokenInputSchema, tokenSchema } from '@/lib/schemas/actions'
import { createAgentToken, revokeAgentToken, rotateAgentToken, setAgentTokenExpiry, updateAgentToken } from '@/lib/admin/tokens'
import { operatorAction } from './safe-action'

/** Create an agent token (expiring at expiresAt, ms; absent or null = never); the secret is in this one answer and nowhere else. */
export const createTokenAction = operatorAction('admin', newTokenSchema, async ({ name, scope, expiresAt }, { db, by }) => {
  const r = await createAgentToken(db, name, scope, by, expiresAt)
  return { name: r.name, token: r.token }
}, { refresh: true })

export const updateTokenAction = operatorAction('admin', tokenInputSchema, async ({ name, scope }, { db, by }) => (await updateAgentToken(db, name, scope, by)).after, { refresh: true })

/** Set (ms) or clear (null) a token's expiry. */
export const setTokenExpiryAction = operatorAction('admin', tokenExpiryInputSchema,
  async ({ name, expiresAt }, { db, by }) => (await setAgentTokenExpiry(db, name, expiresAt, by)).after.expiresAt, { refresh: true })

/** A new secret for a token (same id and scope; same expiry unless expiresAt is given); like a new token's, it is in this one answer only. */
export const rotateTokenAction = operatorAction('admin', rotateTokenSchema, async ({ name, expiresAt }, { db, by }) => {
  const r = await rotateAgentToken(db, name, by, expiresAt)
  return { name: r.name, token: r.token }
}, { refresh: true })

export const revokeTokenAction = operatorAction('admin', tokenSchema, async ({ name }, { db, by }) => (await revokeAgentToken(db, name, by)).name, { refresh: true })

export const createProfileAction = operatorAction('admin', profileInputSchema, async ({ name, servers }, { db, by }) => (await createProfile(db, name, servers, by)).name, { refresh: true })

export const updateProfileAction = operatorAction('admin', profileInputSchema, async ({ name, servers }, { db, by }) => (await updateProfile(db, name, servers, by)).name, { refresh: true })

export const deleteProfileAction = operatorAction('admin', profileSchema, async ({ name }, { db, by }) => (await deleteProfile(db, name, by)).name, { refresh: true })
