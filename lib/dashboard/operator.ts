import 'server-only'
import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { resolveSession, type SessionCredentials, type SessionState } from '@/lib/auth/operator-sessions'
import { can, refusal, type Permission, type Principal } from '@/lib/auth/roles'
import { PATH_HEADER, SESSION_COOKIE, SESSION_KEY_HEADER } from './session-cookie'
import { sameSitePath } from '@/lib/schemas/return-path'
import { getDb } from '@/db/client'

/** The session cookie and the session-key header of this request. */
export async function sessionCredentials(): Promise<SessionCredentials> {
  const [jar, h] = await Promise.all([cookies(), headers()])
  return { value: jar.get(SESSION_COOKIE)?.value, key: h.get(SESSION_KEY_HEADER) ?? undefined }
}

const currentSession = async () => resolveSession(getDb(), await sessionCredentials())

/** The person of this request's full session (cookie and key), or undefined. Every route and action asks. */
export async function currentPrincipal(): Promise<Principal | undefined> {
  return (await currentSession()).principal
}

export async function isSignedIn(): Promise<boolean> {
  return (await currentPrincipal()) !== undefined
}

function toSignIn(returnTo: string): never {
  redirect(`/login?next=${encodeURIComponent(returnTo)}`)
}

/**
 * Every page calls this first and renders nothing unless it returns a person. Without a
 * session the operator is sent to sign in and brought back; a browser navigation (a reload, a
 * typed URL) carries the cookie but cannot carry the key: undefined, and the layout's shell
 * asks again through the key-carrying fetch. Every page needs `view` (every role has it);
 * what else the person may do decides which buttons the page shows.
 */
export async function pagePrincipal(returnTo: string): Promise<Principal | undefined> {
  const { state, principal } = await currentSession()
  if (state === 'signed-out') toSignIn(returnTo)
  return principal
}

/** Whether the page may render (see pagePrincipal). */
export const canViewPage = async (returnTo: string): Promise<boolean> => (await pagePrincipal(returnTo)) !== undefined

/**
 * The dashboard layout's gate: it runs before the loading shell streams, so a request without
 * a session gets a plain redirect and not a byte of the dashboard; `key-missing` gets the
 * data-free shell. (Pages still check themselves: a layout is not re-run on every client
 * navigation, and a page renders whatever its layout returns.)
 */
export async function dashboardSession(): Promise<{ state: Exclude<SessionState, 'signed-out'>; principal?: Principal }> {
  const s = await currentSession()
  if (s.state === 'signed-out') toSignIn(sameSitePath((await headers()).get(PATH_HEADER)) ?? '/')
  return s as { state: Exclude<SessionState, 'signed-out'>; principal?: Principal }
}

const noStore = { 'cache-control': 'no-store' }

/**
 * Route handlers answer 401 (no session) or 403 (a role without `permission`, naming the role
 * needed) instead of redirecting: their callers are scripts and pollers. Null: go ahead, and
 * `allowed` returns the person.
 */
export async function refusedUnless(permission: Permission): Promise<{ denied: Response; principal?: undefined } | { denied: null; principal: Principal }> {
  const principal = await currentPrincipal()
  if (!principal) return { denied: Response.json({ error: 'not signed in', fix: 'Sign in to the dashboard.' }, { status: 401, headers: noStore }) }
  if (!can(principal.role, permission)) return { denied: Response.json({ error: refusal(principal.role, permission), fix: 'Ask an admin for a role that may.' }, { status: 403, headers: noStore }) }
  return { denied: null, principal }
}

/** A route any signed-in person may use. */
export async function unauthorizedUnlessSignedIn(): Promise<Response | null> {
  return (await refusedUnless('view')).denied
}
