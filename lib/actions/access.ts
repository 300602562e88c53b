'use server'

import { z } from 'zod'
import { createProfile, deleteProfile, updateProfile } from '../admin/profiles'
import { profileNameSchema, serverNameSchema, tokenNameSchema, tokenScopeSchema } from '../admin/schemas'
import { createAgentToken, revokeAgentToken, updateAgentToken } from '../admin/tokens'
import { operatorAction } from './safe-action'

const tokenInput = z.strictObject({ name: tokenNameSchema, scope: tokenScopeSchema })
const profileInput = z.strictObject({ name: profileNameSchema, servers: z.array(serverNameSchema).max(1000) })

/** Create an agent token; the secret is in this one answer and nowhere else. */
export const createTokenAction = operatorAction(tokenInput, ({ name, scope }, { db, actor }) => {
  const r = createAgentToken(db, name, scope, { actor })
  return { name: r.name, token: r.token }
}, { refresh: true })

export const updateTokenAction = operatorAction(tokenInput, ({ name, scope }, { db, actor }) => updateAgentToken(db, name, scope, { actor }).after, { refresh: true })

export const revokeTokenAction = operatorAction(z.strictObject({ name: tokenNameSchema }), ({ name }, { db, actor }) => revokeAgentToken(db, name, { actor }).name, { refresh: true })

export const createProfileAction = operatorAction(profileInput, ({ name, servers }, { db, actor }) => createProfile(db, name, servers, { actor }).name, { refresh: true })

export const updateProfileAction = operatorAction(profileInput, ({ name, servers }, { db, actor }) => updateProfile(db, name, servers, { actor }).name, { refresh: true })

export const deleteProfileAction = operatorAction(z.strictObject({ name: profileNameSchema }), ({ name }, { db, actor }) => deleteProfile(db, name, { actor }).name, { refresh: true })
