import { ToolgateError } from '@/lib/core/errors'
import { reviewOf } from '@/lib/dashboard/api'
import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'
import { reviewIdSchema as id } from '@/lib/schemas/dashboard'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

const STATUS = { bad_request: 400, not_found: 404 } as const

/**
 * GET /api/dashboard/review?id=<server:tool> — one tool's full review, loaded when its panel
 * opens: its overlap with every served tool is scored in the worker, off the request loop. Operator session only.
 */
export async function GET(req: Request): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  const q = id.safeParse(new URL(req.url).searchParams.get('id'))
  if (!q.success) return Response.json({ error: 'id must be a tool id <server>:<tool> (1–512 characters)', fix: 'Open the review from a tool\'s row.' }, { status: 400 })
  try {
    return Response.json({ review: await reviewOf(q.data) }, { headers: { 'cache-control': 'no-store' } })
  } catch (e) {
    if (e instanceof ToolgateError && (e.kind === 'bad_request' || e.kind === 'not_found')) return Response.json({ error: e.message }, { status: STATUS[e.kind] })
    throw e
  }
}
