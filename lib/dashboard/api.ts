import 'server-only'
import { getDb } from '@/db/client'
import { pendingCallCount } from '@/db/queries/call-approvals'
import { suggestToolIds } from '@/db/queries/tools'
import { refusedOidc, signInWithSso } from '@/lib/admin/sso'
import { toolReview } from '@/lib/approvals/review'
import { beginOidcSignIn, finishOidcSignIn, type OidcConfig, type SsoRefusal } from '@/lib/auth/oidc'
import type { IssuedSession, SessionOrigin } from '@/lib/auth/operator-sessions'
import { describeError } from '@/lib/core/errors'
import { activityExport } from './activity'
import type { ActivityFilter } from '@/lib/schemas/activity'
import { activityStream, type StreamRequest } from './activity-stream'
import { heldCallArguments } from './approvals'
import { heavy } from './heavy'
import { globalSearch } from './search'

/*
 * What the route handlers (app/api/…, /activity/export) read and do: each opens the database
 * here, so app/ imports nothing of db/. A handler that serves a page's live data calls that
 * page's loader instead (lib/dashboard/pages/).
 */

/** How many calls wait for an operator, and the newest few: every page's nav badge polls it. */
export const heldCalls = () => pendingCallCount(getDb())

/** One held call's whole arguments (undefined: no such held call). */
export const heldCall = (id: string) => heldCallArguments(getDb(), id)

/** Known `server:tool` ids starting with `prefix`, for autocomplete. */
export const toolIdSuggestions = (prefix: string) => suggestToolIds(getDb(), prefix, 20)

/** The header search's hits. */
export const searchHits = (q: string) => globalSearch(getDb(), q)

/** The filtered records as a download. */
export const exportActivity = (filter: ActivityFilter, format: 'json' | 'csv') => activityExport(getDb(), filter, format)

/** The live activity feed (null: too many are open). */
export const openActivityStream = (req: Omit<StreamRequest, 'db'>) => activityStream({ db: getDb(), ...req })

/** One tool's full review; its overlap with every served tool is scored in the worker, off the request loop. */
export async function reviewOf(id: string) {
  const db = getDb()
  return toolReview(db, id, await heavy(db, { kind: 'review-surface', id }))
}

/** A single sign-on's start: the provider's address and the flow cookie, or `unavailable` (recorded) when the provider cannot be reached. */
export async function beginSso(c: OidcConfig, origin: string, next: string, from: SessionOrigin): Promise<{ url: URL; cookie: string } | { refused: 'unavailable' }> {
  const db = getDb()
  try {
    return await beginOidcSignIn(db, c, origin, next)
  } catch (e) {
    await refusedOidc(db, 'unavailable', describeError(e).slice(0, 300), from)
    return { refused: 'unavailable' }
  }
}

/** A single sign-on's end: the session of the person the provider vouched for, or why not (recorded), with where to go next. */
export async function finishSso(c: OidcConfig, query: URLSearchParams, cookie: string | undefined, from: SessionOrigin): Promise<({ session: IssuedSession } | { refused: SsoRefusal }) & { next: string }> {
  const db = getDb()
  const out = await finishOidcSignIn(db, c, query, cookie)
  if ('refused' in out) {
    await refusedOidc(db, out.refused, out.detail, from)
    return { refused: out.refused, next: '/' }
  }
  const r = await signInWithSso(db, c, out.identity, from)
  return 'refused' in r ? { refused: r.refused, next: out.next } : { session: r.session, next: out.next }
}
