import { and, asc, desc, eq, gt, gte, lte, ne } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '../../db/client'
import { activity, type ActivityRow } from '../../db/schema'
import { listActivity } from '../activity/query'
import { activityTypes, surfaces } from '../activity/vocabulary'
import { verdicts } from '../preflight/taxonomy'
import { parseToolId } from '../preflight/ids'
import { requestIdSchema } from './schemas'
import { searchValue, type SearchParams } from './search-params'

export const ACTIVITY_PAGE_SIZE = 50

const blankToUndefined = (v: unknown) => (v === '' ? undefined : v)
const optional = <T extends z.ZodType>(s: T) => z.preprocess(blankToUndefined, s.optional())
// datetime-local ("2026-08-19T09:00") or any ISO instant; kept as epoch ms
const instant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'expected a date and time').transform((s) => Date.parse(s))

/** The activity filters, exactly as they appear in the URL (`/activity?request_id=…&verdict=blocked`). */
export const activityFilterSchema = z.strictObject({
  request_id: optional(requestIdSchema),
  type: optional(z.enum(activityTypes)),
  surface: optional(z.enum(surfaces)),
  verdict: optional(z.enum(verdicts)),
  server: optional(z.string().max(200)),
  from: optional(instant),
  to: optional(instant),
  before: optional(z.coerce.number().int().positive()),
})
export type ActivityFilter = z.output<typeof activityFilterSchema>
export const filterKeys = ['request_id', 'type', 'surface', 'verdict', 'server', 'from', 'to'] as const

/** Parse search params; a bad filter is reported (and ignored), never silently widened into "everything". */
export function activityFilterFromSearch(sp: SearchParams): { filter: ActivityFilter; problems: string[] } {
  const raw = Object.fromEntries([...filterKeys, 'before'].map((k) => [k, searchValue(sp[k])]).filter(([, v]) => v !== undefined))
  const parsed = activityFilterSchema.safeParse(raw)
  if (parsed.success) return { filter: parsed.data, problems: [] }
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])))
  const problems = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`)
  const kept = Object.fromEntries(Object.entries(raw).filter(([k]) => !bad.has(k)))
  return { filter: activityFilterSchema.parse(kept), problems }
}

/** One record as the dashboard shows it (snake_case, ISO time, a one-line summary). */
export interface ActivityItem {
  id: number
  request_id: string
  at: string
  type: string
  surface: string | null
  actor: string
  tier: string | null
  verdict: string | null
  server: string | null
  summary: string
  data: Record<string, unknown>
}

interface CheckData { tools?: { id: string; status: string; reason?: string }[]; target?: string; ids_unique?: number }

export function presentActivity(r: ActivityRow): ActivityItem {
  const d = r.data as CheckData
  const summary = d.tools
    ? `${d.tools.length} id${d.tools.length === 1 ? '' : 's'}: ${d.tools.filter((t) => t.status !== 'ready').map((t) => `${t.id} ${t.reason}`).join(', ') || 'all ready'}`
    : d.target ?? ''
  return {
    id: r.id, request_id: r.requestId, at: new Date(r.at).toISOString(), type: r.type, surface: r.surface, actor: r.actor,
    tier: r.tier, verdict: r.verdict, server: r.server, summary, data: r.data,
  }
}

/**
 * A time range becomes an id window through the `at` index: the log is append-only, so id
 * order is time order, and paging stays keyset-by-id (one index seek per bound, then the
 * filter's own (column, id) index) however many records there are.
 */
function idWindow(db: Db, from?: number, to?: number): { floor?: number; ceiling?: number } {
  const floor = from === undefined ? undefined
    : db.select({ id: activity.id }).from(activity).where(gte(activity.at, from)).orderBy(asc(activity.at)).limit(1).get()?.id ?? Number.MAX_SAFE_INTEGER
  const ceiling = to === undefined ? undefined
    : db.select({ id: activity.id }).from(activity).where(lte(activity.at, to)).orderBy(desc(activity.at)).limit(1).get()?.id ?? 0
  return { floor, ceiling }
}

/** One page, newest first, plus the cursor of the next (older) page. */
export function activityPage(db: Db, f: ActivityFilter, limit = ACTIVITY_PAGE_SIZE): { items: ActivityItem[]; nextBefore: number | null } {
  const { floor, ceiling } = idWindow(db, f.from, f.to)
  const before = Math.min(f.before ?? Number.MAX_SAFE_INTEGER, ceiling === undefined ? Number.MAX_SAFE_INTEGER : ceiling + 1)
  if (floor !== undefined && before <= floor) return { items: [], nextBefore: null }
  const rows = listActivity(db, {
    requestId: f.request_id, type: f.type, surface: f.surface, verdict: f.verdict, server: f.server,
    before: before === Number.MAX_SAFE_INTEGER ? undefined : before, limit: limit + 1,
  })
  const inWindow = floor === undefined ? rows : rows.filter((r) => r.id >= floor)
  const page = inWindow.slice(0, limit)
  return { items: page.map(presentActivity), nextBefore: inWindow.length > limit ? page[page.length - 1].id : null }
}

export interface ActivityGroup { request_id: string; items: ActivityItem[] }

/** Consecutive records of one request shown together (the list stays newest first). */
export function groupByRequest(items: readonly ActivityItem[]): ActivityGroup[] {
  const groups: ActivityGroup[] = []
  for (const it of items) {
    const last = groups.at(-1)
    if (last?.request_id === it.request_id) last.items.push(it)
    else groups.push({ request_id: it.request_id, items: [it] })
  }
  return groups
}

const STORY_LIMIT = 500
const FOLLOW_LIMIT = 20

/**
 * One request's whole story, oldest first: its checks with per-tool verdicts, the remediations
 * recorded under it, and what happened next on the servers it checked (tool calls, approvals,
 * restarts…) — found through the (server, id) index, so this stays fast on a large log.
 */
export function requestStory(db: Db, requestId: string) {
  const items = listActivity(db, { requestId, limit: STORY_LIMIT }).reverse().map(presentActivity)
  const first = items[0]
  if (!first) return { items, followed: [] as ActivityItem[] }
  const servers = new Set<string>()
  for (const it of items) {
    for (const t of (it.data as CheckData).tools ?? []) {
      const p = parseToolId(t.id)
      if (!('malformed' in p)) servers.add(p.server)
    }
    if (it.server) servers.add(it.server)
  }
  const followed = [...servers].flatMap((server) => db.select().from(activity)
    .where(and(eq(activity.server, server), gt(activity.id, first.id), ne(activity.requestId, requestId)))
    .orderBy(asc(activity.id)).limit(FOLLOW_LIMIT).all())
    .sort((a, b) => a.id - b.id).slice(0, FOLLOW_LIMIT).map(presentActivity)
  return { items, followed }
}
