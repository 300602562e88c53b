import 'server-only'
import { dashboardQuerySchema as query } from '@/lib/schemas/dashboard'
import { unauthorizedUnlessSignedIn } from './operator'

/**
 * A GET route for any signed-in person that takes `?q=` (at most 256 characters; `fix` says what to
 * do about a longer one) and answers `answer(q)` as JSON, never cached.
 */
export function signedInQueryRoute(fix: string, answer: (q: string) => unknown): (req: Request) => Promise<Response> {
  return async (req) => {
    const denied = await unauthorizedUnlessSignedIn()
    if (denied) return denied
    const q = query.safeParse(new URL(req.url).searchParams.get('q') ?? '')
    if (!q.success) return Response.json({ error: 'q is at most 256 characters', fix }, { status: 400 })
    return Response.json(answer(q.data), { headers: { 'cache-control': 'no-store' } })
  }
}
