import 'server-only'
import { getDb } from '@/db/client'
import { tokens } from '@/db/queries/access'
import { latestActivityId } from '@/db/queries/activity'
import { operatorList } from '@/db/queries/operators'
import { serverNames } from '@/db/queries/servers'
import { requestIdSchema } from '@/lib/schemas/request-id'
import { activityFacets, activityPage, requestStory, verdictChart } from '../activity'
import type { ActivityFilter, ChartSpan } from '@/lib/schemas/activity'

/** The server, token and person a link named, kept pickable though they may be gone since (their records stay). */
export interface Named { server?: string; token?: string; person?: string }

const withNamed = (names: string[], named: string | undefined) => [...new Set([...names, ...(named ? [named] : [])])]

/** `/activity`: one page of the timeline, its facets and chart, and the names its filters offer. */
export function loadActivity(filter: ActivityFilter, span: ChartSpan, named: Named) {
  const db = getDb()
  // read before the page: a record that lands while the page is read is then streamed, not lost
  const latest = latestActivityId(db)
  const { items, nextBefore } = activityPage(db, filter)
  return {
    latest, items, nextBefore,
    facets: activityFacets(db, filter),
    chart: verdictChart(db, filter, span),
    servers: withNamed(serverNames(db), named.server),
    tokens: withNamed(tokens(db).map((t) => t.name), named.token),
    people: withNamed([...operatorList(db).map((o) => o.username), 'break-glass'], named.person),
  }
}

/** `/activity/<request_id>`: one request's records and what followed on its servers (none for a malformed id). */
export function loadRequestStory(requestId: string) {
  return requestIdSchema.safeParse(requestId).success ? requestStory(getDb(), requestId) : { items: [], followed: [] }
}
