import { cookies } from 'next/headers'
import { z } from 'zod'
import { activityFilterFromSearch } from '@/lib/dashboard/activity'
import { activityStream, MAX_STREAMS } from '@/lib/dashboard/activity-stream'
import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'
import { SESSION_COOKIE } from '@/lib/dashboard/session-cookie'
import { formatIssue } from '@/lib/schemas/issues'
import { getDb } from '@/db/client'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

const recordId = z.string().regex(/^\d{1,15}$/, 'expected the id of the newest record the page has (a whole number)').transform(Number)
// the browser's own reconnect repeats the URL and names the last event it got in Last-Event-ID
const position = z.object({ after: recordId, 'Last-Event-ID': recordId.optional() })

const json = (body: unknown, status: number) => Response.json(body, { status, headers: { 'cache-control': 'no-store' } })

/**
 * GET /api/dashboard/activity/stream?after=<id>&<filters> — Server-Sent Events: every record
 * after `after` that matches the filters, as it is recorded. Operator session only.
 */
export async function GET(req: Request): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  const sp = Object.fromEntries(new URL(req.url).searchParams)
  const at = position.safeParse({ after: sp.after ?? '', 'Last-Event-ID': req.headers.get('last-event-id') ?? undefined })
  const { filter, problems } = activityFilterFromSearch(sp)
  const errors = [...(at.success ? [] : at.error.issues.map(formatIssue)), ...problems]
  if (!at.success || errors.length) return json({ error: errors.join('; '), fix: 'Open the stream with ?after=<id of the newest record shown> and the page\'s filters.' }, 400)
  const session = (await cookies()).get(SESSION_COOKIE)?.value
  const after = Math.max(at.data.after, at.data['Last-Event-ID'] ?? 0)
  return activityStream({ db: getDb(), filter, after, session, signal: req.signal })
    ?? json({ error: `${MAX_STREAMS} live activity streams are open already`, fix: 'Close Activity tabs you no longer watch; this one retries shortly.' }, 503)
}
