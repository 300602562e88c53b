import 'server-only'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { activityAfter, activityIdWindow, listActivity } from '@/db/queries/activity'
import { presentActivity, type ActivityItem } from '@/lib/activity/present'
import { activityTypes, surfaces } from '@/lib/activity/vocabulary'
import { verdicts } from '@/lib/preflight/taxonomy'
import { parseToolId } from '@/lib/preflight/ids'
import { requestIdSchema } from '@/lib/schemas/request-id'
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

/** One page, newest first, plus the cursor of the next (older) page. */
export function activityPage(db: Db, f: ActivityFilter, limit = ACTIVITY_PAGE_SIZE): { items: ActivityItem[]; nextBefore: number | null } {
  const { floor, ceiling } = activityIdWindow(db, f.from, f.to)
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
    if (it.type === 'preflight') {
      for (const t of it.data.tools) {
        const p = parseToolId(t.id)
        if (!('malformed' in p)) servers.add(p.server)
      }
    }
    if (it.server) servers.add(it.server)
  }
  const followed = [...servers].flatMap((server) => activityAfter(db, server, first.id, requestId, FOLLOW_LIMIT))
    .sort((a, b) => a.id - b.id).slice(0, FOLLOW_LIMIT).map(presentActivity)
  return { items, followed }
}

const EXPORT_LIMIT = 10_000
const CSV_COLUMNS = ['id', 'request_id', 'at', 'type', 'surface', 'actor', 'tier', 'verdict', 'server', 'summary'] as const
const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** The filtered records (newest first, at most 10 000) as a download: JSON keeps every field, CSV one line per record. */
export function activityExport(db: Db, f: ActivityFilter, format: 'json' | 'csv'): { body: string; type: string; filename: string } {
  const { items } = activityPage(db, f, EXPORT_LIMIT)
  const filename = `toolgate-activity-${new Date().toISOString().replace(/[:.]/g, '-')}.${format}`
  if (format === 'json') return { body: JSON.stringify({ records: items }, null, 2), type: 'application/json', filename }
  const lines = [CSV_COLUMNS.join(','), ...items.map((it) => CSV_COLUMNS.map((c) => csvCell(it[c])).join(','))]
  return { body: `${lines.join('\r\n')}\r\n`, type: 'text/csv; charset=utf-8', filename }
}
