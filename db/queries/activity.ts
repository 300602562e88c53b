import 'server-only'
import { and, asc, count, desc, eq, gt, gte, inArray, isNotNull, lt, lte, max, min, ne, sql, type SQL } from 'drizzle-orm'
import type { Db, DbLike, Tx } from '@/db/client'
import { activity, activityCallMinutes, activityCheckMinutes, activityServers, type ActivityRow } from '@/db/schema'
import type { StoredLink } from '@/lib/core/activity-chain'
import type { ActivityRecord } from '@/lib/core/activity'
import { checkClasses, indexedThrough, MINUTE, uncountRecords, unindexedFor, type ReasonClasses } from './activity-index'

export interface ActivityFilter {
  requestId?: string
  type?: string
  verdict?: string
  server?: string
  surface?: string
  actor?: string
  q?: string // free text: see `matchesText`
  before?: number // id cursor: rows with a smaller id
  limit?: number
}

/** A time range on `at` (epoch ms), both ends inclusive. */
export interface AtRange { from?: number; to?: number }

type Connection = DbLike['$client']
const appendStatements = new WeakMap<Connection, ReturnType<typeof prepareAppend>>()

// The hot path writes one record per check and call: plain statements prepared once per connection.
function prepareAppend(client: Connection) {
  return {
    record: client.prepare(`insert into activity (request_id, at, type, surface, actor, tier, verdict, server, operator_id, auth, data, prev_hash, hash)
      values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`).pluck(),
    head: client.prepare('select hash from activity order by id desc limit 1').pluck(),
  }
}

function appendOn(db: DbLike) {
  let st = appendStatements.get(db.$client)
  if (!st) appendStatements.set(db.$client, (st = prepareAppend(db.$client)))
  return st
}

/** The newest record's hash (null before the first): read inside the caller's write transaction, so no other writer can append in between. */
export function newestActivityHash(db: DbLike): string | null {
  return (appendOn(db).head.get() as string | null | undefined) ?? null
}

/** Insert one record, its data already JSON text; returns its id. */
export function insertActivityRow(db: DbLike, row: Omit<ActivityRow, 'id' | 'data'>, data: string): number {
  return appendOn(db).record.get(row.requestId, row.at, row.type, row.surface, row.actor, row.tier, row.verdict, row.server, row.operatorId, row.auth, data, row.prevHash, row.hash) as number
}

// The data column is JSON written only through ActivityInput, so its shape follows `type`.
const typed = (rows: (typeof activity.$inferSelect)[]) => rows as ActivityRecord[]
const CALL_PARTS = ['tool.call', 'tool.call_outcome']
type OutcomeRecord = Extract<ActivityRecord, { type: 'tool.call_outcome' }>

/** The outcome records of these calls (tool.call records), by the call's id; a call without one is absent. */
export function callOutcomes(db: DbLike, calls: readonly { id: number; requestId: string }[]): Map<number, OutcomeRecord> {
  const found = new Map<number, OutcomeRecord>()
  if (!calls.length) return found
  const wanted = new Set(calls.map((c) => c.id))
  // an outcome shares its call's request id: that index reaches it
  const rows = db.select().from(activity).where(and(
    sql`${activity.requestId} in (select value from json_each(${JSON.stringify([...new Set(calls.map((c) => c.requestId))])}))`,
    eq(activity.type, 'tool.call_outcome'),
  )).all() as OutcomeRecord[]
  for (const r of rows) if (wanted.has(r.data.call)) found.set(r.data.call, r)
  return found
}

/** A LIKE pattern that finds `text` anywhere, its own % _ and \\ matched literally (ESCAPE '\\'). */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * Free text anywhere in a record: its request id, actor, server, type, or its data's JSON text
 * (tool ids, targets…), which holds the text JSON-escaped (a quote as \"), so that is matched too.
 * LIKE is ASCII case-insensitive. No index serves a substring, so the rows are read newest first
 * until the page is full: the result is bounded by the page size (and the id window), the work by
 * how rare the text is. A text on no record reads the whole log: about 40 ms per 100 000 (small) records
 * (measured: tests/unit/activity/text-search.test.ts).
 */
function matchesText(q: string): SQL {
  const plain = containsPattern(q)
  const json = containsPattern(JSON.stringify(q).slice(1, -1))
  return sql`(${activity.requestId} like ${plain} escape '\\' or ${activity.actor} like ${plain} escape '\\'
    or ${activity.server} like ${plain} escape '\\' or ${activity.type} like ${plain} escape '\\' or ${activity.data} like ${json} escape '\\')`
}

/** The column filters every reader shares (the server filter needs its index: `concernsServer`). */
function columnConditions(f: ActivityFilter, range: AtRange = {}): SQL[] {
  const where: SQL[] = []
  if (f.requestId) where.push(eq(activity.requestId, f.requestId))
  // a call is recorded in two parts (contract §12): asking for calls finds both
  if (f.type) where.push(f.type === 'tool.call' ? inArray(activity.type, CALL_PARTS) : eq(activity.type, f.type))
  if (f.verdict) where.push(eq(activity.verdict, f.verdict))
  if (f.surface) where.push(eq(activity.surface, f.surface))
  if (f.actor) where.push(eq(activity.actor, f.actor))
  if (f.q) where.push(matchesText(f.q))
  if (range.from !== undefined) where.push(gte(activity.at, range.from))
  if (range.to !== undefined) where.push(lte(activity.at, range.to))
  return where
}

/** Records that concern `server`: the index, plus the few records past its watermark. */
function concernsServer(db: Db, server: string): SQL {
  return sql`(${activity.id} in (select ${activityServers.activityId} from ${activityServers} where ${activityServers.server} = ${server})
    or ${activity.id} in (select value from json_each(${JSON.stringify(unindexedFor(db, server))})))`
}

/** Newest first, keyset-paged by id so deep pages stay as fast as the first. */
export function listActivity(db: Db, f: ActivityFilter = {}): ActivityRecord[] {
  const where = columnConditions(f)
  if (f.server) {
    const limit = f.limit ?? 50
    // the newest records, not indexed yet (a short tail while the server runs), first …
    const tailIds = unindexedFor(db, f.server).filter((id) => f.before === undefined || id < f.before)
    const tail = tailIds.length === 0 ? [] : db.select().from(activity)
      .where(and(sql`${activity.id} in (select value from json_each(${JSON.stringify(tailIds)}))`, ...where)).orderBy(desc(activity.id)).limit(limit).all()
    if (tail.length === limit) return typed(tail)
    // … then the (server, activity_id) key: newest first, stopping after one page
    if (f.before !== undefined) where.push(lt(activityServers.activityId, f.before))
    return typed([...tail, ...db.select({ a: activity }).from(activityServers).innerJoin(activity, eq(activity.id, activityServers.activityId))
      .where(and(eq(activityServers.server, f.server), ...where)).orderBy(desc(activityServers.activityId)).limit(limit - tail.length)
      .all().map((r) => r.a)])
  }
  if (f.before !== undefined) where.push(lt(activity.id, f.before))
  return typed(db.select().from(activity).where(and(...where)).orderBy(desc(activity.id)).limit(f.limit ?? 50).all())
}

export type FacetField = 'type' | 'actor' | 'verdict'
export interface FacetCount { value: string; count: number }

/**
 * The commonest values of one column among the newest `window` records that match (below
 * `before`, from `floor`), most first, at most `top`: one grouped query. The window keeps it
 * bounded on any log; the newest matching records come off the id key (or the type's,
 * verdict's or actor's (column, id) index when that filter is set), like a page of the list.
 */
export function activityFacet(db: Db, f: ActivityFilter, field: FacetField, bounds: { floor?: number; before?: number; window: number; top: number }): FacetCount[] {
  const where = columnConditions(f)
  if (f.server) where.push(concernsServer(db, f.server))
  if (bounds.floor !== undefined) where.push(gte(activity.id, bounds.floor))
  if (bounds.before !== undefined) where.push(lt(activity.id, bounds.before))
  const recent = db.select({ value: activity[field] }).from(activity).where(and(...where))
    .orderBy(desc(activity.id)).limit(bounds.window).as('recent')
  // a verdict is null on records other than checks: those are not a facet value
  return db.select({ value: recent.value, count: count() }).from(recent).where(isNotNull(recent.value))
    .groupBy(recent.value).orderBy(desc(count()), asc(recent.value)).limit(bounds.top).all() as FacetCount[]
}

/** Who a request is: the actor of its first record (undefined when nothing is recorded under it). */
export function requestOwner(db: Db, requestId: string): string | undefined {
  return db.select({ actor: activity.actor }).from(activity).where(eq(activity.requestId, requestId)).orderBy(asc(activity.id)).limit(1).get()?.actor
}

// One seek of the request-id index per distinct id, greatest first (exported for its query-plan test).
export const REQUEST_IDS_WITH_PREFIX = `with recursive ids(rid) as (
    select max(request_id) from activity where request_id >= :lo and request_id < :hi
    union all
    select (select max(request_id) from activity where request_id >= :lo and request_id < ids.rid) from ids where ids.rid is not null
    limit :limit
  )
  select rid from ids where rid is not null order by (select max(id) from activity where request_id = rid) desc`

/**
 * Up to `limit` request ids on the record that start with `prefix` (case-sensitive, as ids
 * are), newest record first. It skips down the request-id index, never reading the whole
 * range, which a short prefix of a minted id (its time part) makes huge; so it takes the
 * greatest matching ids, and minted ids sort by time: those are the newest.
 */
export function requestIdsStartingWith(db: Db, prefix: string, limit: number): string[] {
  // request ids are ASCII (REQUEST_ID_RE): every one starting with `prefix` sorts below prefix + U+FFFF
  return db.$client.prepare(REQUEST_IDS_WITH_PREFIX).pluck().all({ lo: prefix, hi: `${prefix}\uffff`, limit }) as string[]
}

export function getActivity(db: Db, id: number): ActivityRecord | undefined {
  const row = db.select().from(activity).where(eq(activity.id, id)).get()
  return row && typed([row])[0]
}

/**
 * A time range as an id window through the `at` index: the log is append-only, so id order is
 * time order, and paging stays keyset-by-id however many records there are.
 */
export function activityIdWindow(db: Db, from?: number, to?: number): { floor?: number; ceiling?: number } {
  const floor = from === undefined ? undefined
    : db.select({ id: activity.id }).from(activity).where(gte(activity.at, from)).orderBy(asc(activity.at)).limit(1).get()?.id ?? Number.MAX_SAFE_INTEGER
  const ceiling = to === undefined ? undefined
    : db.select({ id: activity.id }).from(activity).where(lte(activity.at, to)).orderBy(desc(activity.at)).limit(1).get()?.id ?? 0
  return { floor, ceiling }
}

/** What happened next on a server after record `afterId`, outside one request (oldest first). */
export function activityAfter(db: Db, server: string, afterId: number, notRequestId: string, limit: number): ActivityRecord[] {
  return typed(db.select().from(activity)
    .where(and(eq(activity.server, server), gt(activity.id, afterId), ne(activity.requestId, notRequestId)))
    .orderBy(asc(activity.id)).limit(limit).all())
}

/** The newest record's id (0 for an empty log): where a live reader starts. */
export function latestActivityId(db: Db): number {
  return db.select({ id: max(activity.id) }).from(activity).get()?.id ?? 0
}

/**
 * Matching records with `afterId < id <= throughId`, oldest first. Ids are handed out in commit
 * order (one writer), so every record up to `throughId` — the newest id when it was read — is
 * already visible: a live reader that moves its cursor to `throughId` skips nothing.
 */
export function activitySince(db: Db, f: ActivityFilter, range: AtRange, afterId: number, throughId: number, limit: number): ActivityRecord[] {
  const where = [...columnConditions(f, range), gt(activity.id, afterId), lte(activity.id, throughId)]
  if (f.server) where.push(concernsServer(db, f.server))
  return typed(db.select().from(activity).where(and(...where)).orderBy(asc(activity.id)).limit(limit).all())
}

export interface BucketCount { bucket: number; verdict: string | null; checks: number }

/**
 * Checks (preflight records) per class in `width`-ms buckets of [start, end), a check under each
 * class it holds (`checkClasses`). Bucket n covers [start + n·width, start + (n+1)·width). Whole
 * minutes filtered at most by surface and actor add up the per-minute counts (plus the records
 * past their watermark); anything else (a verdict, which the minutes do not keep, a request id, a
 * server, free text, bounds inside a minute) counts the records themselves.
 */
export function verdictCounts(db: Db, classes: ReasonClasses, f: ActivityFilter, start: number, end: number, width: number): BucketCount[] {
  if (!minutesAnswer(f, 'preflight', start, end, width)) return countRecords(db, classes, f, start, end, width)
  const through = indexedThrough(db)
  const m = activityCheckMinutes
  // the bound numbers may arrive as floats: cast, so the division is a whole bucket number
  const bucket = sql<number>`cast((${m.minute} - ${start}) / ${width} as integer)`
  const where = [gte(m.minute, start), lt(m.minute, end)]
  if (f.surface) where.push(eq(m.surface, f.surface))
  if (f.actor) where.push(eq(m.actor, f.actor))
  const counted = db.select({ bucket, verdict: m.verdict, checks: sql<number>`sum(${m.checks})` }).from(m).where(and(...where)).groupBy(bucket, m.verdict).all()
  const tail = countRecords(db, classes, f, start, end, width, through)
  return addUp([...counted.map((c) => ({ ...c, verdict: c.verdict || null })), ...tail], (r) => r.verdict, (r) => r.checks, (b, verdict, checks) => ({ bucket: b, verdict, checks }))
}

/** Records of `type` matching `f` with `at` in [start, end): the conditions the chart's counts share. */
function bucketConditions(db: Db, f: ActivityFilter, type: string, start: number, end: number): SQL[] {
  const where = [...columnConditions(f), eq(activity.type, type)]
  // a request's or a server's records are few: reach them by their own index, not by scanning the time range
  // (the unary + keeps SQLite's planner off the `at` index, which it would otherwise pick)
  const at = f.requestId || f.server ? sql`+${activity.at}` : activity.at
  where.push(sql`${at} >= ${start}`, sql`${at} < ${end}`)
  if (f.server) where.push(concernsServer(db, f.server))
  return where
}

const bucketOf = (start: number, width: number) => sql<number>`cast((${activity.at} - ${start}) / ${width} as integer)`

/** The same counts from the records themselves (those past `afterId` only, when given). */
export function countRecords(db: Db, classes: ReasonClasses, f: ActivityFilter, start: number, end: number, width: number, afterId?: number): BucketCount[] {
  const where = bucketConditions(db, f, 'preflight', start, end)
  if (afterId !== undefined) where.push(gt(activity.id, afterId))
  const checks = db.select({ id: activity.id, at: activity.at, surface: activity.surface, actor: activity.actor, verdict: activity.verdict, data: activity.data })
    .from(activity).where(and(...where))
  return db.all<BucketCount>(sql`with classes(map) as (select ${JSON.stringify(classes)}), checks as ${checks}
    select cast((at - ${start}) / ${width} as integer) as bucket, nullif(class, '') as verdict, count(*) as checks from (${sql.raw(checkClasses)}) group by 1, 2`)
}

export interface CallBucketCount { bucket: number; outcome: string | null; calls: number }

/** Whole minutes filtered at most by surface and actor: what the per-minute counts can answer for `type`. */
const minutesAnswer = (f: ActivityFilter, type: string, start: number, end: number, width: number) =>
  start % MINUTE === 0 && end % MINUTE === 0 && width % MINUTE === 0 && !f.verdict && !f.requestId && !f.server && !f.q && (!f.type || f.type === type)

/** Sums of rows with the same bucket and class. */
function addUp<R extends { bucket: number }>(rows: R[], classOf: (r: R) => string | null, n: (r: R) => number, make: (bucket: number, cls: string | null, sum: number) => R): R[] {
  const sums = new Map<string, R>()
  for (const r of rows) {
    const key = `${r.bucket}\u0000${classOf(r)}`
    const seen = sums.get(key)
    sums.set(key, make(r.bucket, classOf(r), (seen ? n(seen) : 0) + n(r)))
  }
  return [...sums.values()]
}

/**
 * Tool calls (tool.call records, by when they were received) per outcome in `width`-ms buckets of
 * [start, end); null while a call has no outcome. Whole minutes filtered at most by surface and
 * actor add up the per-minute counts, then correct them by what lies past their watermark: the
 * calls there, and the outcomes there of calls counted before without one. Anything else counts
 * the records (`callRecordCounts`).
 */
export function callCounts(db: Db, f: ActivityFilter, start: number, end: number, width: number): CallBucketCount[] {
  if (!minutesAnswer(f, 'tool.call', start, end, width)) return callRecordCounts(db, f, start, end, width)
  const through = indexedThrough(db)
  const m = activityCallMinutes
  const bucket = sql<number>`cast((${m.minute} - ${start}) / ${width} as integer)`
  const where = [gte(m.minute, start), lt(m.minute, end)]
  if (f.surface) where.push(eq(m.surface, f.surface))
  if (f.actor) where.push(eq(m.actor, f.actor))
  const counted = db.select({ bucket, outcome: m.outcome, calls: sql<number>`sum(${m.calls})` }).from(m).where(and(...where)).groupBy(bucket, m.outcome).all()
  const settled = db.all<CallBucketCount>(sql`select cast((c.at - ${start}) / ${width} as integer) as bucket, json_extract(o.data, '$.outcome') as outcome, count(*) as calls
    from activity o cross join activity c on c.id = json_extract(o.data, '$.call')
    where o.id > ${through} and o.type = 'tool.call_outcome' and c.id <= ${through} and c.type = 'tool.call' and json_extract(c.data, '$.outcome') is null
      and c.at >= ${start} and c.at < ${end}${f.surface ? sql` and c.surface = ${f.surface}` : sql``}${f.actor ? sql` and c.actor = ${f.actor}` : sql``}
    group by 1, 2`)
  const rows = [
    ...counted.map((c) => ({ ...c, outcome: c.outcome || null })),
    ...callRecordCounts(db, f, start, end, width, through),
    // counted as running under the watermark, ended past it
    ...settled.flatMap((r) => [r, { bucket: r.bucket, outcome: null, calls: -r.calls }]),
  ]
  return addUp(rows, (r) => r.outcome, (r) => r.calls, (b, outcome, calls) => ({ bucket: b, outcome, calls })).filter((r) => r.calls !== 0)
}

/**
 * The same counts from the records (calls past `afterId` only, when given), one grouped query: a
 * call's outcome is on its own record, or on the outcome record naming it (reached through the
 * request-id index).
 */
export function callRecordCounts(db: Db, f: ActivityFilter, start: number, end: number, width: number, afterId?: number): CallBucketCount[] {
  const bucket = bucketOf(start, width)
  // the outer record named in full: drizzle writes a one-table query's columns unqualified, which inside would mean o's
  const outcome = sql<string | null>`coalesce(json_extract(activity.data, '$.outcome'), (select json_extract(o.data, '$.outcome') from activity o
    where o.request_id = activity.request_id and o.type = 'tool.call_outcome' and json_extract(o.data, '$.call') = activity.id limit 1))`
  const where = bucketConditions(db, f, 'tool.call', start, end)
  if (afterId !== undefined) where.push(gt(activity.id, afterId))
  return db.select({ bucket, outcome, calls: count() }).from(activity).where(and(...where)).groupBy(bucket, outcome).all()
}

/**
 * Delete up to `limit` of the oldest records from before `before`: only ever a prefix of the log
 * in commit order, so the first record kept anchors the tamper-evident chain (lib/core/activity-chain.ts)
 * and every later link stays whole. A call goes with its outcome (contract §12), even an outcome
 * newer than the cutoff; a call whose outcome lies past the prefix stays, with what follows it,
 * until both can go.
 */
export function deleteOldest(tx: Tx, classes: ReasonClasses, before: number, limit: number): number {
  const head = tx.select({ id: activity.id, at: activity.at, type: activity.type, requestId: activity.requestId,
    call: sql<number | null>`case when ${activity.type} = 'tool.call_outcome' then json_extract(${activity.data}, '$.call') end` })
    .from(activity).orderBy(asc(activity.id)).limit(limit).all()
  // the prefix: records from before the cutoff, and the outcomes of calls in it
  const calls = new Set<number>()
  let rows: typeof head = []
  for (const r of head) {
    if (r.at >= before && (r.call === null || !calls.has(r.call))) break
    if (r.type === 'tool.call') calls.add(r.id)
    rows.push(r)
  }
  for (;;) {
    if (!rows.length) return 0
    const last = rows[rows.length - 1].id
    const outcomes = callOutcomes(tx, rows.filter((r) => r.type === 'tool.call'))
    const cut = rows.findIndex((r) => r.type === 'tool.call' && (outcomes.get(r.id)?.id ?? 0) > last)
    if (cut < 0) break
    rows = rows.slice(0, cut)
  }
  uncountRecords(tx, classes, rows.map((r) => r.id), { from: Math.min(...rows.map((r) => r.at)), to: Math.max(...rows.map((r) => r.at)) })
  return tx.delete(activity).where(lte(activity.id, rows[rows.length - 1].id)).run().changes
}

/** The oldest record kept and how many there are. */
export function activityExtent(db: Db): { oldestAt: number | null; records: number } {
  const row = db.select({ oldestAt: min(activity.at), records: count() }).from(activity).get()
  return { oldestAt: row?.oldestAt ?? null, records: row?.records ?? 0 }
}

/** Every record's chained columns in commit order, streamed (a million records are never all in memory). */
export function* chainLinks(db: Db): Generator<StoredLink> {
  yield* db.$client.prepare(`select id, request_id as requestId, at, type, surface, actor, tier, verdict, server, operator_id as operatorId, auth,
    data as dataText, prev_hash as prevHash, hash from activity order by id`).iterate() as IterableIterator<StoredLink>
}

/** The newest record's id and hash: what a copy of the log kept elsewhere is compared against. */
export function chainHead(db: Db): { id: number; hash: string | null } | null {
  return db.select({ id: activity.id, hash: activity.hash }).from(activity).orderBy(desc(activity.id)).limit(1).get() ?? null
}
