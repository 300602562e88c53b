import { activityFilterFromSearch, activityPage } from '@/lib/dashboard/activity'
import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'
import { getDb } from '@/db/client'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/dashboard/activity?<filters> — the newest page, polled by the live timeline. Operator session only. */
export async function GET(req: Request): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  const sp = Object.fromEntries(new URL(req.url).searchParams)
  const { filter, problems } = activityFilterFromSearch(sp)
  if (problems.length) return Response.json({ error: problems.join('; '), fix: 'Correct or clear the filter.' }, { status: 400 })
  const { before: _ignored, ...newest } = filter
  return Response.json(activityPage(getDb(), newest), { headers: { 'cache-control': 'no-store' } })
}
