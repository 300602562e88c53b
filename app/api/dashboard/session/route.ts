import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/**
 * GET /api/dashboard/session — 204 when this browser holds a valid operator session (the cookie
 * and the session key), else 401. The sign-in page asks it from script: a browser navigation
 * carries no session key (and, arriving from another site, no SameSite=Strict cookie), but this
 * fetch carries both, so an operator who is in fact signed in is sent straight on.
 */
export async function GET(): Promise<Response> {
  return (await unauthorizedUnlessSignedIn()) ?? new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } })
}
