'use server'

import 'server-only'
import { cookies, headers } from 'next/headers'
import type { z } from 'zod'
import { getDb } from '@/db/client'
import { signInBreakGlass, signInWithPassword, signOutOperator, type SessionOrigin, type SignInResult } from '@/lib/auth/operator-sessions'
import { acceptInvitation } from '@/lib/admin/operators'
import { noInputSchema } from '@/lib/schemas/actions'
import { invitationSchema, keySignInSchema as keySchema, passwordSignInSchema as passwordSchema } from '@/lib/schemas/operators'
import { SESSION_COOKIE, sessionCookieOptions } from '@/lib/dashboard/session-cookie'
import { formatIssues } from '@/lib/schemas/issues'
import { operatorAction, type ActionResult } from './safe-action'
import { REMOTE_HEADER } from '@/lib/http/headers'
import { boundaryFromEnv, publicOrigin } from '@/lib/http/boundary'

type Signed = ActionResult<{ key: string; next: string }>

/**
 * The session cookie (sessionCookieOptions); the session key is in this answer only, for the page to keep in
 * localStorage and send as a header (another loopback port gets the cookie, never the key).
 * The page then goes to `next`.
 */
async function signedIn(result: SignInResult, next: string): Promise<Signed> {
  if ('refused' in result) return { ok: false, error: result.refused, fix: result.fix }
  const h = await headers()
  const jar = await cookies()
  jar.set(SESSION_COOKIE, result.session.value, sessionCookieOptions(result.session.expires, publicOrigin(boundaryFromEnv(), (name) => h.get(name))?.startsWith('https:') ?? false))
  return { ok: true, data: { key: result.session.key, next } }
}

async function origin(): Promise<SessionOrigin> {
  const h = await headers()
  return { userAgent: h.get('user-agent'), address: h.get(REMOTE_HEADER) }
}

// These actions run without a session: they are how a session is made.

/** Sign in with the break-glass key (the shared operator key): as the bootstrap admin, on the record as `break-glass`. */
export async function signIn(raw: z.input<typeof keySchema>): Promise<Signed> {
  const parsed = keySchema.safeParse(raw)
  if (!parsed.success) return { ok: false, error: formatIssues(parsed.error), fix: 'Paste the break-glass key (TOOLGATE_API_KEY, or the key printed at first start).' }
  return signedIn(await signInBreakGlass(getDb(), parsed.data.key, await origin()), parsed.data.next)
}

/** Sign in as yourself: username (or e-mail) and password. */
export async function signInPassword(raw: z.input<typeof passwordSchema>): Promise<Signed> {
  const parsed = passwordSchema.safeParse(raw)
  if (!parsed.success) return { ok: false, error: formatIssues(parsed.error), fix: 'Enter your username (or e-mail) and password.' }
  return signedIn(await signInWithPassword(getDb(), parsed.data.login, parsed.data.password, await origin()), parsed.data.next)
}

/** Accept an invitation: choose a password, and be signed in. The link works once, until it expires. */
export async function acceptInvitationAction(raw: z.input<typeof invitationSchema>): Promise<Signed> {
  const parsed = invitationSchema.safeParse(raw)
  if (!parsed.success) return { ok: false, error: formatIssues(parsed.error), fix: 'Open the whole link you were sent, and choose a longer password.' }
  return signedIn(await acceptInvitation(getDb(), parsed.data.token, parsed.data.password, await origin()), '/')
}

/** End this session on the server (its cookie stops working everywhere at once), then drop the cookie; the page forgets the key. */
export const signOut = operatorAction('view', noInputSchema, async ({}, { db, principal }) => {
  const jar = await cookies()
  await signOutOperator(db, jar.get(SESSION_COOKIE)?.value, principal)
  jar.delete(SESSION_COOKIE)
  return null
})
