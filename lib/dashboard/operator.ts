import 'server-only'
import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { isValidSession } from '@/lib/auth/operator-sessions'
import { PATH_HEADER, SESSION_COOKIE } from './session-cookie'
import { sameSitePath } from '@/lib/schemas/return-path'
import { getDb } from '@/db/client'

/** Who the dashboard's operator is on the record (the same name the REST operator tier uses). */
export const OPERATOR_ACTOR = 'operator'

/** Whether this request carries a valid operator session. Every page, route and action asks. */
export async function isSignedIn(): Promise<boolean> {
  const jar = await cookies()
  return isValidSession(getDb(), jar.get(SESSION_COOKIE)?.value)
}

/** Pages call this first; without a session the operator is sent to sign in and brought back. */
export async function requireOperator(returnTo: string): Promise<void> {
  if (!(await isSignedIn())) redirect(`/login?next=${encodeURIComponent(returnTo)}`)
}

/**
 * The dashboard layout's gate: it runs before the loading shell streams, so a request without
 * a valid session gets a plain redirect and not a byte of the dashboard. (Pages still check
 * themselves: a layout is not re-run on every client navigation.)
 */
export async function requireOperatorForLayout(): Promise<void> {
  const path = (await headers()).get(PATH_HEADER)
  await requireOperator(sameSitePath(path) ?? '/')
}

/** Route handlers answer 401 instead of redirecting: their callers are scripts and pollers. */
export async function unauthorizedUnlessSignedIn(): Promise<Response | null> {
  if (await isSignedIn()) return null
  return Response.json({ error: 'not signed in', fix: 'Sign in to the dashboard with the operator API key.' }, { status: 401, headers: { 'cache-control': 'no-store' } })
}
