'use server'

import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { z } from 'zod'
import { recordSignOut, signInOperator } from '../auth/session'
import { SESSION_COOKIE } from '../dashboard/session-cookie'
import { serverDb } from '../http/server-db'
import { formatIssues } from '../preflight/schemas'
import { OPERATOR_ACTOR } from '../dashboard/operator'
import { operatorAction, type ActionResult } from './safe-action'

// Only a same-site path may be a return target: never another origin ("//evil", "https://…").
const returnTo = z.string().regex(/^\/(?![/\\])[^\s]*$/).catch('/')
const signInSchema = z.strictObject({ key: z.string().trim().min(1, 'enter the operator API key').max(512), next: returnTo })

async function isHttps(): Promise<boolean> {
  const h = await headers()
  return h.get('x-forwarded-proto') === 'https'
}

/**
 * The one action that runs without a session: it is how a session is made. The cookie is
 * HttpOnly (no script can read it), SameSite=Strict (no other site can send it) and Path=/.
 */
export async function signIn(raw: z.input<typeof signInSchema>): Promise<ActionResult<never>> {
  const parsed = signInSchema.safeParse(raw)
  if (!parsed.success) return { ok: false, error: formatIssues(parsed.error), fix: 'Paste the operator API key (TOOLGATE_API_KEY, or the key printed at first start).' }
  const result = signInOperator(serverDb(), parsed.data.key, OPERATOR_ACTOR)
  if ('refused' in result) return { ok: false, error: result.refused, fix: 'Use TOOLGATE_API_KEY, or the key toolgate printed once at first start.' }
  const jar = await cookies()
  jar.set(SESSION_COOKIE, result.session.value, {
    httpOnly: true, sameSite: 'strict', path: '/', expires: result.session.expires, secure: await isHttps(),
  })
  redirect(parsed.data.next)
}

export const signOut = operatorAction(z.strictObject({}), async ({}, { db, actor }) => {
  recordSignOut(db, actor)
  ;(await cookies()).delete(SESSION_COOKIE)
  return null
})
