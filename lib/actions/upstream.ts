'use server'

import 'server-only'
import { headers } from 'next/headers'
import { z } from 'zod'
import { serverNameSchema } from '@/lib/schemas/admin'
import { requestIdSchema } from '@/lib/schemas/request-id'
import { requestRestart, setSecret } from '@/lib/admin/upstreams'
import { startLogin } from '@/lib/upstream/oauth'
import { operatorAction } from './safe-action'
import { strictReturnPathSchema } from '@/lib/schemas/return-path'
import { boundaryFromEnv, publicOrigin } from '@/lib/http/boundary'

/** This server's own origin as the browser reached it: the OAuth callback must come back here. */
async function origin(): Promise<string> {
  const h = await headers()
  const found = publicOrigin(boundaryFromEnv(), (name) => h.get(name))
  if (!found) throw new Error('the request has no Host header, so the login callback URL is unknown')
  return found
}

/** Start the upstream runtime's real OAuth login; the browser then opens the returned URL and comes back to `returnTo`. */
export const startLoginAction = operatorAction('operate',
  z.strictObject({ server: serverNameSchema, returnTo: strictReturnPathSchema, requestId: requestIdSchema.optional() }),
  async ({ server, returnTo, requestId }, { db, by }) => startLogin(db, server, { baseUrl: await origin(), returnTo }, { ...by, requestId }),
)

/** Ask the runtime to reconnect a server. */
export const restartAction = operatorAction('operate',
  z.strictObject({ server: serverNameSchema }),
  async ({ server }, { db, by }) => { await requestRestart(db, server, by); return server },
  { refresh: true },
)

/** Store a secret the server's transport needs. The record names the secret, never its value. */
export const setSecretAction = operatorAction('admin',
  z.strictObject({
    server: serverNameSchema,
    name: z.string().trim().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a secret name is an environment-variable name (letters, digits, "_")'),
    value: z.string().min(1, 'the secret value must not be empty').max(16_384),
  }),
  async ({ server, name, value }, { db, by }) => { await setSecret(db, server, name, value, by); return name },
  { refresh: true },
)
