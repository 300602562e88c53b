import 'server-only'
import { NextResponse, type NextRequest } from 'next/server'
import { beginSso, finishSso } from '@/lib/dashboard/api'
import { oidcConfig, OIDC_FLOW_COOKIE, OIDC_FLOW_TTL_MS, type SsoRefusal } from '@/lib/auth/oidc'
import type { SessionOrigin } from '@/lib/auth/operator-sessions'
import { SESSION_COOKIE, sessionCookieOptions } from '@/lib/dashboard/session-cookie'
import { sameSitePath } from '@/lib/schemas/return-path'
import { boundaryFromEnv, publicOrigin } from '@/lib/http/boundary'
import { REMOTE_HEADER } from '@/lib/http/headers'

/**
 * The two ends of a single sign-on (lib/auth/oidc.ts), as GET route handlers: /start sends the
 * browser to the provider, /callback is where the provider sends it back. Neither needs a
 * session: they are how one is made. Every Location is relative (it keeps the browser on the
 * host it used); every answer is no-store.
 */
const originOf = (req: NextRequest): SessionOrigin => ({ userAgent: req.headers.get('user-agent'), address: req.headers.get(REMOTE_HEADER) })
const secure = (origin: string | null) => origin?.startsWith('https:') ?? false
const flowCookie = { httpOnly: true, sameSite: 'lax' as const, path: '/api/auth/oidc' }

function go(location: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location, 'cache-control': 'no-store' } })
}

/** Back to the sign-in page, which says why (by code only: a link cannot make it say anything else). */
function refused(code: SsoRefusal, next: string): NextResponse {
  const res = go(`/login?${new URLSearchParams({ sso_error: code, ...(next !== '/' ? { next } : {}) })}`)
  res.cookies.set(OIDC_FLOW_COOKIE, '', { ...flowCookie, maxAge: 0 })
  return res
}

export async function startOidc(req: NextRequest): Promise<Response> {
  const next = sameSitePath(req.nextUrl.searchParams.get('next')) ?? '/'
  const c = oidcConfig()
  if (!c) return refused('off', next)
  const origin = publicOrigin(boundaryFromEnv(), (n) => req.headers.get(n))!
  const begun = await beginSso(c, origin, next, originOf(req))
  if ('refused' in begun) return refused(begun.refused, next)
  const res = go(begun.url.href)
  res.cookies.set(OIDC_FLOW_COOKIE, begun.cookie, { ...flowCookie, maxAge: OIDC_FLOW_TTL_MS / 1000, secure: secure(origin) })
  return res
}

/**
 * A signed-in person gets the session cookie here, and the session key in the fragment of
 * /login/sso (a fragment is never sent to a server; that page keeps the key as the sign-in form
 * does and removes it from the address bar).
 */
export async function finishOidc(req: NextRequest): Promise<Response> {
  const c = oidcConfig()
  if (!c) return refused('off', '/')
  const r = await finishSso(c, req.nextUrl.searchParams, req.cookies.get(OIDC_FLOW_COOKIE)?.value, originOf(req))
  if ('refused' in r) return refused(r.refused, r.next)
  const res = go(`/login/sso#${new URLSearchParams({ key: r.session.key, next: r.next })}`)
  res.cookies.set(SESSION_COOKIE, r.session.value, sessionCookieOptions(r.session.expires, secure(publicOrigin(boundaryFromEnv(), (n) => req.headers.get(n)))))
  res.cookies.set(OIDC_FLOW_COOKIE, '', { ...flowCookie, maxAge: 0 })
  return res
}
