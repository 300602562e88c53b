import 'server-only'
import type { z } from 'zod'
import type { Db } from '@/db/client'
import { activityAfter, activityFacet, callCounts, chainHead, activityIdWindow, listActivity, verdictCounts, type ActivityFilter as RecordFilter, type FacetCount, type FacetField } from '@/db/queries/activity'
import { callArgumentsOf } from '@/db/queries/calls'
import { presentRecords } from '@/lib/activity/present-records'
import { callFacts, type ActivityItem } from '@/lib/activity/present'
import { reasonVerdicts, verdicts, type Verdict } from '@/lib/preflight/taxonomy'
import { parseToolId } from '@/lib/preflight/ids'
import { editDistance } from '@/lib/preflight/suggest'
import { activityFilterSchema, type ActivityFilter, type ChartSpan } from '@/lib/schemas/activity'
import { searchValue, type SearchParams } from './search-params'

export const ACTIVITY_PAGE_SIZE = 50

export const filterKeys = ['q', 'request_id', 'type', 'surface', 'verdict', 'server', 'token', 'person', 'from', 'to'] as const

/** What a filter's value is, in words: "no record type …" reads better than "invalid type". */
const valueNouns: Partial<Record<string, string>> = { type: 'record type', surface: 'surface', verdict: 'verdict' }
// a short list is named whole; a long one (the record types) only by its look-alikes
const LISTED = 8
const DATE_FORMS = 'use YYYY-MM-DD, YYYY-MM-DDTHH:MM or an ISO instant such as 2026-08-19T09:00:00Z'

/** Up to three of `values` that `word` may have meant: a few edits away, or containing it. */
const meant = (word: string, values: readonly string[]) =>
  values.filter((v) => editDistance(word, v) <= 2 || (word.length > 2 && v.includes(word))).slice(0, 3)

/** One bad filter in a sentence naming it: the value it got and, for a list, what it may be. */
function filterProblem(issue: z.core.$ZodIssue, raw: Record<string, string>): string {
  const key = String(issue.path[0])
  const got = raw[key]
  if (issue.code === 'invalid_value' && valueNouns[key]) {
    const values = issue.values.map(String)
    if (values.length <= LISTED) return `${key} must be one of ${values.join(', ')} (not "${got}")`
    const near = meant(got, values)
    return `${key}: no ${valueNouns[key]} "${got}" — ${near.length ? `did you mean ${near.map((v) => `"${v}"`).join(' or ')}?` : `pick one from the ${key} filter's list`}`
  }
  if (key === 'from' || key === 'to') return `${key}: "${got}" is not a date (${DATE_FORMS})`
  return `${key}: ${issue.message}`
}

/**
 * Parse search params: the one parser of the Activity page, its live stream and its export. A bad
 * filter is reported by name (and left out), never silently widened into "everything";
 * `applied` is the URL's filters less the bad ones, verbatim, for the stream and the links.
 */
export function activityFilterFromSearch(sp: SearchParams): { filter: ActivityFilter; problems: string[]; applied: Record<string, string> } {
  const raw = Object.fromEntries([...filterKeys, 'before'].map((k) => [k, searchValue(sp[k])]).filter(([, v]) => v)) as Record<string, string>
  const parsed = activityFilterSchema.safeParse(raw)
  const bad = new Set(parsed.success ? [] : parsed.error.issues.map((i) => String(i.path[0])))
  const applied = Object.fromEntries(Object.entries(raw).filter(([k]) => k !== 'before' && !bad.has(k)))
  if (parsed.success) return { filter: parsed.data, problems: [], applied }
  const kept = Object.fromEntries(Object.entries(raw).filter(([k]) => !bad.has(k)))
  return { filter: activityFilterSchema.parse(kept), problems: parsed.error.issues.map((i) => filterProblem(i, raw)), applied }
}

/** The filter in the queries' terms: an agent token's records are those it acted as (`token:<name>`), a person's those under their username. */
export function recordFilter(f: ActivityFilter): RecordFilter {
  return { requestId: f.request_id, type: f.type, surface: f.surface, verdict: f.verdict, server: f.server, actor: f.token ? `token:${f.token}` : f.person, q: f.q }
}

/** The From–To filter and the page cursor as an id window: records with floor <= id < before. */
function idBounds(db: Db, f: ActivityFilter): { floor?: number; before: number } {
  const { floor, ceiling } = activityIdWindow(db, f.from, f.to)
  return { floor, before: Math.min(f.before ?? Number.MAX_SAFE_INTEGER, ceiling === undefined ? Number.MAX_SAFE_INTEGER : ceiling + 1) }
}

/** One page, newest first, plus the cursor of the next (older) page. */
export function activityPage(db: Db, f: ActivityFilter, limit = ACTIVITY_PAGE_SIZE): { items: ActivityItem[]; nextBefore: number | null } {
  const { floor, before } = idBounds(db, f)
  if (floor !== undefined && before <= floor) return { items: [], nextBefore: null }
  const rows = listActivity(db, { ...recordFilter(f), before: before === Number.MAX_SAFE_INTEGER ? undefined : before, limit: limit + 1 })
  const inWindow = floor === undefined ? rows : rows.filter((r) => r.id >= floor)
  const page = inWindow.slice(0, limit)
  return { items: presentRecords(db, page), nextBefore: inWindow.length > limit ? page[page.length - 1].id : null }
}

export const FACET_WINDOW = 10_000
const FACET_TOP = 8
export const facetFields: readonly FacetField[] = ['type', 'actor', 'verdict']

/** Counts per type, actor and verdict among the latest FACET_WINDOW records the filters match (the page's cursor and From–To included). */
export function activityFacets(db: Db, f: ActivityFilter): Record<FacetField, FacetCount[]> {
  const { floor, before } = idBounds(db, f)
  const bounds = { floor, before: before === Number.MAX_SAFE_INTEGER ? undefined : before, window: FACET_WINDOW, top: FACET_TOP }
  const filter = recordFilter(f)
  return Object.fromEntries(facetFields.map((field) => [field, activityFacet(db, filter, field, bounds)])) as Record<FacetField, FacetCount[]>
}

/** The URL filter a facet value adds (an actor is a token's or a person's; any other actor has none), or null. */
export function facetParam(field: FacetField, value: string): [string, string] | null {
  const [key, v] = field === 'actor' ? (value.startsWith('token:') ? ['token', value.slice('token:'.length)] : ['person', value]) : [field, value]
  const parsed = activityFilterSchema.shape[key as keyof typeof activityFilterSchema.shape].safeParse(v)
  return parsed.success ? [key, v] : null
}

const STORY_LIMIT = 500
const FOLLOW_LIMIT = 20

/**
 * One request's whole story, oldest first: its checks with per-tool verdicts, the remediations
 * recorded under it, and what happened next on the servers it checked (tool calls, approvals,
 * restarts…) — found through the (server, id) index, so this stays fast on a large log.
 */
export function requestStory(db: Db, requestId: string) {
  const items = presentRecords(db, listActivity(db, { requestId, limit: STORY_LIMIT }).reverse())
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
  const followed = presentRecords(db, [...servers].flatMap((server) => activityAfter(db, server, first.id, requestId, FOLLOW_LIMIT))
    .sort((a, b) => a.id - b.id).slice(0, FOLLOW_LIMIT))
  return { items, followed }
}

const EXPORT_LIMIT = 10_000
// auth: how the actor proved who they were (oidc, session, token, break-glass), so the file alone says who did what
const CSV_COLUMNS = ['id', 'request_id', 'at', 'type', 'surface', 'actor', 'auth', 'tier', 'verdict', 'server', 'summary'] as const
// a call's facts (lib/activity/present.ts), as the JSON export has them in data; a held call's
// arguments besides (the log keeps only their hash; the held call keeps them for its decision)
const CALL_COLUMNS = ['target', 'outcome', 'duration_ms', 'reason', 'error', 'call_id', 'approver', 'arguments_hash'] as const
// a spreadsheet runs a cell that starts with = + - @ (or a tab or CR before one) as a formula;
// agents and upstreams choose much of what is recorded, so such a cell gets a ' and shows as text
const FORMULA_START = /^[=+\-@\t\r]/
const csvCell = (v: unknown) => {
  const raw = v === null || v === undefined ? '' : String(v)
  const s = FORMULA_START.test(raw) ? `'${raw}` : raw
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** The filtered records (newest first, at most 10 000) as a download: JSON keeps every field, CSV one line per record. */
export function activityExport(db: Db, f: ActivityFilter, format: 'json' | 'csv'): { body: string; type: string; filename: string } {
  const { items } = activityPage(db, f, EXPORT_LIMIT)
  const filename = `toolgate-activity-${new Date().toISOString().replace(/[:.]/g, '-')}.${format}`
  // the chain head as of the export: a copy kept elsewhere proves later what the log said then
  if (format === 'json') return { body: JSON.stringify({ chain_head: chainHead(db), records: items }, null, 2), type: 'application/json', filename }
  const facts = items.map(callFacts)
  // only export_activity's roles get here, and each of them reads call arguments (lib/auth/roles.ts)
  const args = callArgumentsOf(db, [...new Set(facts.flatMap((f) => (f.call_id ? [f.call_id] : [])))])
  const lines = [[...CSV_COLUMNS, ...CALL_COLUMNS, 'arguments'].join(','), ...items.map((it, i) => {
    const call = facts[i]
    return [...CSV_COLUMNS.map((c) => csvCell(it[c])), ...CALL_COLUMNS.map((c) => csvCell(call[c])), csvCell(call.call_id && args.get(call.call_id))].join(',')
  })]
  return { body: `${lines.join('\r\n')}\r\n`, type: 'text/csv; charset=utf-8', filename }
}

/**
 * An instant as a datetime-local value in this server's time zone: the zone the filter reads
 * such values in, so a chart link's exact bounds survive a round trip through the form.
 */
export function localInputValue(ms: number): string {
  const d = new Date(ms)
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  const minutes = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
  if (!d.getSeconds() && !d.getMilliseconds()) return minutes
  return `${minutes}:${p(d.getSeconds())}${d.getMilliseconds() ? `.${p(d.getMilliseconds(), 3)}` : ''}`
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** The chart's ranges when no From/To filter is set; the default stays out of the URL. */
export const chartSpans = { '1h': HOUR, '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY } as const satisfies Record<ChartSpan, number>
export const DEFAULT_SPAN: ChartSpan = '24h'

// widths people read at a glance: the narrowest that keeps the chart to MAX_BARS bars (24 h → hours)
const BAR_WIDTHS = [MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY]
const MAX_BARS = 36
const barWidth = (length: number) => BAR_WIDTHS.find((w) => length / w <= MAX_BARS) ?? Math.ceil(length / MAX_BARS / DAY) * DAY

/** How calls ended, as the chart groups them: not run covers refused, denied, expired and cancelled; pending, no end recorded yet. */
export const callGroups = ['ok', 'failed', 'refused', 'held', 'pending'] as const
export type CallGroup = (typeof callGroups)[number]
const callGroupOf = (outcome: string | null): CallGroup =>
  outcome === null ? 'pending' : outcome === 'ok' || outcome === 'held' ? outcome : outcome === 'tool_error' || outcome === 'failed' ? 'failed' : 'refused'

/** `counts`: checks per class, a check under each class it holds (db/queries/activity-index.ts checkClasses); `calls`: calls per end. */
export interface ChartBar { start: number; end: number; counts: Record<Verdict, number>; calls: Record<CallGroup, number> }
/** `span` is null when the From–To filter sets the window instead; `rows` are the rows the filters can fill. */
export interface VerdictChart { span: ChartSpan | null; width: number; bars: ChartBar[]; rows: { checks: boolean; calls: boolean } }

/** The From–To filter when set (either end may be open), else `span` ending with the bar that holds `now`. */
function chartWindow(f: ActivityFilter, span: ChartSpan, now: number): { start: number; end: number; width: number } {
  if (f.from === undefined && f.to === undefined) {
    const length = chartSpans[span]
    const width = barWidth(length)
    // bars start on whole hours (or on their own width, when narrower), so a bar labelled 09:00 starts at 09:00
    const align = Math.min(width, HOUR)
    const end = Math.floor(now / align) * align + align
    return { start: end - length, end, width }
  }
  const end = f.to !== undefined ? f.to + 1 : now + 1
  const start = f.from ?? end - chartSpans[span]
  return { start, end, width: barWidth(Math.max(end - start, 1)) }
}

/**
 * Checks per interval and class, and tool calls per interval and outcome, for the current filters
 * (one grouped query each). A row the filters leave empty by their nature is left out: checks for
 * the calls type, calls for the checks type or a verdict (only checks carry one). Null when the
 * type filter is neither checks nor calls.
 */
export function verdictChart(db: Db, f: ActivityFilter, span: ChartSpan, now = Date.now()): VerdictChart | null {
  const rows = { checks: f.type === undefined || f.type === 'preflight', calls: (f.type === undefined || f.type === 'tool.call') && f.verdict === undefined }
  if (!rows.checks && !rows.calls) return null
  const { start, end, width } = chartWindow(f, span, now)
  const bars: ChartBar[] = Array.from({ length: Math.max(0, Math.ceil((end - start) / width)) }, (_, i) => ({
    start: start + i * width,
    end: Math.min(start + (i + 1) * width, end),
    counts: Object.fromEntries(verdicts.map((v) => [v, 0])) as Record<Verdict, number>,
    calls: Object.fromEntries(callGroups.map((g) => [g, 0])) as Record<CallGroup, number>,
  }))
  if (bars.length && rows.checks) {
    for (const row of verdictCounts(db, reasonVerdicts, recordFilter(f), start, end, width)) {
      const bar = bars[row.bucket]
      if (bar && (verdicts as readonly (string | null)[]).includes(row.verdict)) bar.counts[row.verdict as Verdict] = row.checks
    }
  }
  if (bars.length && rows.calls) {
    for (const row of callCounts(db, recordFilter(f), start, end, width)) {
      const bar = bars[row.bucket]
      if (bar) bar.calls[callGroupOf(row.outcome)] += row.calls
    }
  }
  return { span: f.from === undefined && f.to === undefined ? span : null, width, bars, rows }
}
