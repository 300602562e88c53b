'use server'

import 'server-only'
import { headers } from 'next/headers'
import { serverSchema, setSecretSchema, startLoginSchema } from '@/lib/schemas/actions'
import { requestRestart, setSecret } from '@/lib/admin/upstreams'
import { startLogin } from '@/lib/upstream/oauth'
import { operatorAction } from './safe-action'
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
  startLoginSchema,
  async ({ server, returnTo, requestId }, { db, by }) => startLogin(db, server, { baseUrl: await origin(), returnTo }, { ...by, requestId }),
)

/** Ask the runtime to reconnect a server. */
export const restartAction = operatorAction('operate',
  serverSchema,
  async ({ server }, { db, by }) => { await requestRestart(db, server, by); return server },
  { refresh: true },
)

/** Store a secret the server's transport needs. The record names the secret, never its value. */
export const setSecretAction = operatorAction('admin',
  setSecretSchema,
  async ({ server, name, value }, { db, by }) => { await setSecret(db, server, name, value, by); return name },
  { refresh: true },
)
