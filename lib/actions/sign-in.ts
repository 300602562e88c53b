'use server'

import 'server-only'
import { cookies, headers } from 'next/headers'
import { z } from 'zod'
import { getDb } from '@/db/client'
import { signInOperator, signOutOperator } from '@/lib/auth/operator-sessions'
import { SESSION_COOKIE } from '@/lib/dashboard/session-cookie'
import { formatIssues } from '@/lib/schemas/issues'
import { returnPathSchema } from '@/lib/schemas/return-path'
import { OPERATOR_ACTOR } from '@/lib/dashboard/operator'
import { operatorAction, type ActionResult } from './safe-action'
import { REMOTE_HEADER } from '@/lib/http/headers'
import { boundaryFromEnv, publicOrigin } from '@/lib/http/boundary'

const signInSchema = z.strictObject({ key: z.string().trim().min(1, 'enter the operator API key').max(512), next: returnPathSchema })

/**
 * The one action that runs without a session: it is how a session is made. The cookie is
 * HttpOnly (no script can read it), SameSite=Strict (no other site can send it) and Path=/;
 * the session key is in this answer only, for the page to keep in localStorage and send as a
 * header (another loopback port gets the cookie, never the key). The page then goes to `next`.
 */
export async function signIn(raw: z.input<typeof signInSchema>): Promise<ActionResult<{ key: string; next: string }>> {
  const parsed = signInSchema.safeParse(raw)
  if (!parsed.success) return { ok: false, error: formatIssues(parsed.error), fix: 'Paste the operator API key (TOOLGATE_API_KEY, or the key printed at first start).' }
  const h = await headers()
  const result = await signInOperator(getDb(), parsed.data.key, OPERATOR_ACTOR, { userAgent: h.get('user-agent'), address: h.get(REMOTE_HEADER) })
  if ('refused' in result) return { ok: false, error: result.refused, fix: result.fix }
  const jar = await cookies()
  jar.set(SESSION_COOKIE, result.session.value, {
    httpOnly: true, sameSite: 'strict', path: '/', expires: result.session.expires,
    secure: publicOrigin(boundaryFromEnv(), (name) => h.get(name))?.startsWith('https:') ?? false,
  })
  return { ok: true, data: { key: result.session.key, next: parsed.data.next } }
}

/** End this session on the server (its cookie stops working everywhere at once), then drop the cookie; the page forgets the key. */
export const signOut = operatorAction(z.strictObject({}), async ({}, { db, actor }) => {
  const jar = await cookies()
  await signOutOperator(db, jar.get(SESSION_COOKIE)?.value, actor)
  jar.delete(SESSION_COOKIE)
  return null
})
