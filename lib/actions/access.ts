'use server'

import 'server-only'
import { z } from 'zod'
import { createProfile, deleteProfile, updateProfile } from '@/lib/admin/profiles'
import { profileNameSchema, serverNameSchema, tokenExpirySchema, tokenNameSchema, tokenScopeSchema } from '@/lib/schemas/admin'
import { createAgentToken, revokeAgentToken, rotateAgentToken, setAgentTokenExpiry, updateAgentToken } from '@/lib/admin/tokens'
import { operatorAction } from './safe-action'

const tokenInput = z.strictObject({ name: tokenNameSchema, scope: tokenScopeSchema })
const profileInput = z.strictObject({ name: profileNameSchema, servers: z.array(serverNameSchema).max(1000) })

/** Create an agent token (expiring at expiresAt, ms; absent or null = never); the secret is in this one answer and nowhere else. */
export const createTokenAction = operatorAction('admin', tokenInput.extend({ expiresAt: tokenExpirySchema.default(null) }), async ({ name, scope, expiresAt }, { db, by }) => {
  const r = await createAgentToken(db, name, scope, by, expiresAt)
  return { name: r.name, token: r.token }
}, { refresh: true })

export const updateTokenAction = operatorAction('admin', tokenInput, async ({ name, scope }, { db, by }) => (await updateAgentToken(db, name, scope, by)).after, { refresh: true })

/** Set (ms) or clear (null) a token's expiry. */
export const setTokenExpiryAction = operatorAction('admin', z.strictObject({ name: tokenNameSchema, expiresAt: tokenExpirySchema }),
  async ({ name, expiresAt }, { db, by }) => (await setAgentTokenExpiry(db, name, expiresAt, by)).expiresAt, { refresh: true })

/** A new secret for a token (same id and scope; same expiry unless expiresAt is given); like a new token's, it is in this one answer only. */
export const rotateTokenAction = operatorAction('admin', z.strictObject({ name: tokenNameSchema, expiresAt: tokenExpirySchema.optional() }), async ({ name, expiresAt }, { db, by }) => {
  const r = await rotateAgentToken(db, name, by, expiresAt)
  return { name: r.name, token: r.token }
}, { refresh: true })

export const revokeTokenAction = operatorAction('admin', z.strictObject({ name: tokenNameSchema }), async ({ name }, { db, by }) => (await revokeAgentToken(db, name, by)).name, { refresh: true })

export const createProfileAction = operatorAction('admin', profileInput, async ({ name, servers }, { db, by }) => (await createProfile(db, name, servers, by)).name, { refresh: true })

export const updateProfileAction = operatorAction('admin', profileInput, async ({ name, servers }, { db, by }) => (await updateProfile(db, name, servers, by)).name, { refresh: true })

export const deleteProfileAction = operatorAction('admin', z.strictObject({ name: profileNameSchema }), async ({ name }, { db, by }) => (await deleteProfile(db, name, by)).name, { refresh: true })
