import { NextResponse, type NextRequest } from 'next/server'
import { PATH_HEADER, SESSION_COOKIE } from './lib/dashboard/session-cookie'
import { isDashboardPath } from './lib/dashboard/routes'
import { pageCsp } from './lib/http/security-headers'
import { isDevelopment } from './lib/core/config'

/**
 * Every page Next.js renders gets a Content-Security-Policy with a fresh nonce (Next.js reads it
 * from the request and puts it on its scripts). And, a convenience only: a browser with no
 * session cookie at all is sent to sign in before a dashboard page renders. That never decides
 * access — every page, route handler and server action verifies the session itself (an expired
 * or forged cookie passes here and fails there).
 */
export function proxy(request: NextRequest) {
  const path = request.nextUrl.pathname + request.nextUrl.search
  const dashboard = isDashboardPath(request.nextUrl.pathname)
  if (dashboard && !request.cookies.has(SESSION_COOKIE)) {
    const login = new URL('/login', request.url)
    login.searchParams.set('next', path)
    return NextResponse.redirect(login)
  }
  const csp = pageCsp(btoa(crypto.randomUUID()), isDevelopment())
  const headers = new Headers(request.headers)
  headers.set('content-security-policy', csp)
  // the dashboard layout checks the session before anything streams; it returns here after sign-in
  if (dashboard) headers.set(PATH_HEADER, path)
  const response = NextResponse.next({ request: { headers } })
  response.headers.set('content-security-policy', csp)
  return response
}

// Pages only: not route handlers (/api/…, the export: the front door's CSP covers them), /mcp,
// static assets or prefetches, and not server actions: the front door has already read and
// checked their bodies, their answers are not documents, and each action checks the session itself.
export const config = {
  matcher: [{
    source: '/((?!api/|_next/static|_next/image|icon.svg|activity/export).*)',
    missing: [
      { type: 'header', key: 'next-action' },
      { type: 'header', key: 'next-router-prefetch' },
      { type: 'header', key: 'purpose', value: 'prefetch' },
    ],
  }],
}
