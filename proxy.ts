import { NextResponse, type NextRequest } from 'next/server'
import { PATH_HEADER, SESSION_COOKIE } from './lib/dashboard/session-cookie'

/**
 * A convenience only: a browser with no session cookie at all is sent to sign in before any
 * page renders. It never decides access — every page, route handler and server action
 * verifies the signed session itself (an expired or forged cookie passes here and fails there).
 */
export function proxy(request: NextRequest) {
  const path = request.nextUrl.pathname + request.nextUrl.search
  if (!request.cookies.has(SESSION_COOKIE)) {
    const login = new URL('/login', request.url)
    login.searchParams.set('next', path)
    return NextResponse.redirect(login)
  }
  // the dashboard layout checks the session before anything streams; it returns here after sign-in
  const headers = new Headers(request.headers)
  headers.set(PATH_HEADER, path)
  return NextResponse.next({ request: { headers } })
}

// Dashboard pages only: not the sign-in page, APIs (they answer 401), /mcp or static assets, and
// not server actions: the front door has already read and checked their bodies, and each action
// checks the session itself.
export const config = {
  matcher: [
    { source: '/', missing: [{ type: 'header', key: 'next-action' }] },
    { source: '/preflight/:path*', missing: [{ type: 'header', key: 'next-action' }] },
    { source: '/activity/:path*', missing: [{ type: 'header', key: 'next-action' }] },
    { source: '/servers/:path*', missing: [{ type: 'header', key: 'next-action' }] },
    { source: '/tokens/:path*', missing: [{ type: 'header', key: 'next-action' }] },
    { source: '/settings/:path*', missing: [{ type: 'header', key: 'next-action' }] },
    { source: '/approvals/:path*', missing: [{ type: 'header', key: 'next-action' }] },
  ],
}
