import { heldCalls } from '@/lib/dashboard/api'
import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/dashboard/held — how many calls wait for an operator (and the newest few by id and tool): every page's nav badge, title and held-call notifications poll it. Operator session only. */
export async function GET(): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  return Response.json(heldCalls(), { headers: { 'cache-control': 'no-store' } })
}
