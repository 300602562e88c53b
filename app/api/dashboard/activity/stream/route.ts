import { activityFilterFromSearch } from '@/lib/dashboard/activity'
import { MAX_STREAMS } from '@/lib/dashboard/activity-stream'
import { openActivityStream } from '@/lib/dashboard/api'
import { sessionCredentials, unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'
import { formatIssue } from '@/lib/schemas/issues'
import { streamPositionSchema as position } from '@/lib/schemas/activity'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

const json = (body: unknown, status: number) => Response.json(body, { status, headers: { 'cache-control': 'no-store' } })

/**
 * GET /api/dashboard/activity/stream?after=<id>&<filters> — in Server-Sent Events framing: every
 * record after `after` that matches the filters, as it is recorded. Operator session only (the
 * page reads it with fetch, so the session key comes along; a reconnect names its last record in `after`).
 */
export async function GET(req: Request): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  const sp = Object.fromEntries(new URL(req.url).searchParams)
  const at = position.safeParse({ after: sp.after ?? '' })
  const { filter, problems } = activityFilterFromSearch(sp)
  // the page opens the stream with only the filters it applied (the same parser): this answers a hand-made URL
  const errors = [...(at.success ? [] : at.error.issues.map(formatIssue)), ...problems]
  if (!at.success || errors.length) return json({ error: errors.join('; '), fix: 'Open the stream with ?after=<id of the newest record shown> and valid filters (the Activity page names a bad one).' }, 400)
  return openActivityStream({ filter, after: at.data.after, session: await sessionCredentials(), signal: req.signal })
    ?? json({ error: `${MAX_STREAMS} live activity streams are open already`, fix: 'Close Activity tabs you no longer watch; this one retries shortly.' }, 503)
}
