'use server'

import 'server-only'
import { z } from 'zod'
import { createProfile, deleteProfile, updateProfile } from '@/lib/admin/profiles'
import { profileNameSchema, serverNameSchema, tokenNameSchema, tokenScopeSchema } from '@/lib/admin/schemas'
import { createAgentToken, revokeAgentToken, rotateAgentToken, updateAgentToken } from '@/lib/admin/tokens'
import { operatorAction } from './safe-action'

const tokenInput = z.strictObject({ name: tokenNameSchema, scope: tokenScopeSchema })
const profileInput = z.strictObject({ name: profileNameSchema, servers: z.array(serverNameSchema).max(1000) })

/** Create an agent token; the secret is in this one answer and nowhere else. */
export const createTokenAction = operatorAction(tokenInput, async ({ name, scope }, { db, actor }) => {
  const r = await createAgentToken(db, name, scope, { actor })
  return { name: r.name, token: r.token }
}, { refresh: true })

export const updateTokenAction = operatorAction(tokenInput, async ({ name, scope }, { db, actor }) => (await updateAgentToken(db, name, scope, { actor })).after, { refresh: true })

/** A new secret for a token (same id and scope); like a new token's, it is in this one answer only. */
export const rotateTokenAction = operatorAction(z.strictObject({ name: tokenNameSchema }), async ({ name }, { db, actor }) => {
  const r = await rotateAgentToken(db, name, { actor })
  return { name: r.name, token: r.token }
}, { refresh: true })

export const revokeTokenAction = operatorAction(z.strictObject({ name: tokenNameSchema }), async ({ name }, { db, actor }) => (await revokeAgentToken(db, name, { actor })).name, { refresh: true })

export const createProfileAction = operatorAction(profileInput, async ({ name, servers }, { db, actor }) => (await createProfile(db, name, servers, { actor })).name, { refresh: true })

export const updateProfileAction = operatorAction(profileInput, async ({ name, servers }, { db, actor }) => (await updateProfile(db, name, servers, { actor })).name, { refresh: true })

export const deleteProfileAction = operatorAction(z.strictObject({ name: profileNameSchema }), async ({ name }, { db, actor }) => (await deleteProfile(db, name, { actor })).name, { refresh: true })
