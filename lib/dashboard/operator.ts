import 'server-only'
import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { sessionState, type SessionCredentials, type SessionState } from '@/lib/auth/operator-sessions'
import { PATH_HEADER, SESSION_COOKIE, SESSION_KEY_HEADER } from './session-cookie'
import { sameSitePath } from '@/lib/schemas/return-path'
import { getDb } from '@/db/client'

/** Who the dashboard's operator is on the record (the same name the REST operator tier uses). */
export const OPERATOR_ACTOR = 'operator'

/** The session cookie and the session-key header of this request. */
export async function sessionCredentials(): Promise<SessionCredentials> {
  const [jar, h] = await Promise.all([cookies(), headers()])
  return { value: jar.get(SESSION_COOKIE)?.value, key: h.get(SESSION_KEY_HEADER) ?? undefined }
}

const currentSession = async (): Promise<SessionState> => sessionState(getDb(), await sessionCredentials())

/** Whether this request carries a full operator session (cookie and key). Every route and action asks. */
export async function isSignedIn(): Promise<boolean> {
  return (await currentSession()) === 'signed-in'
}

function toSignIn(returnTo: string): never {
  redirect(`/login?next=${encodeURIComponent(returnTo)}`)
}

/**
 * Every page calls this first and renders nothing unless it says true. Without a session the
 * operator is sent to sign in and brought back; a browser navigation (a reload, a typed URL)
 * carries the cookie but cannot carry the key: false, and the layout's shell asks again through
 * the key-carrying fetch.
 */
export async function canViewPage(returnTo: string): Promise<boolean> {
  const state = await currentSession()
  if (state === 'signed-out') toSignIn(returnTo)
  return state === 'signed-in'
}

/**
 * The dashboard layout's gate: it runs before the loading shell streams, so a request without
 * a session gets a plain redirect and not a byte of the dashboard; `key-missing` gets the
 * data-free shell. (Pages still check themselves: a layout is not re-run on every client
 * navigation, and a page renders whatever its layout returns.)
 */
export async function dashboardSession(): Promise<'signed-in' | 'key-missing'> {
  const state = await currentSession()
  if (state === 'signed-out') toSignIn(sameSitePath((await headers()).get(PATH_HEADER)) ?? '/')
  return state
}

/** Route handlers answer 401 instead of redirecting: their callers are scripts and pollers. */
export async function unauthorizedUnlessSignedIn(): Promise<Response | null> {
  if (await isSignedIn()) return null
  return Response.json({ error: 'not signed in', fix: 'Sign in to the dashboard with the operator API key.' }, { status: 401, headers: { 'cache-control': 'no-store' } })
}
