import 'server-only'
import type { Db, DbLike } from '@/db/client'
import { writeRecords } from '@/db/write'

/**
 * Data derived from the records, filled in batches off the request path under one watermark:
 * written with each record, its scattered index pages made every check's commit (and fsync)
 * two to three times dearer. Readers cover the records past the watermark themselves, so
 * what they read is exact at every moment.
 * - activity_servers, the server filter's index: a record concerns its own `server`, and a
 *   check every server its well-formed ids name (`unindexedFor` covers the tail);
 * - activity_check_minutes, checks per minute and class for the Activity chart (`verdictCounts` in ./activity);
 * - activity_call_minutes, tool calls per minute and outcome for its calls row (`callCounts` in ./activity).
 */
const recordServers = (range: string) => `
  select a.server as server, a.id as activity_id from activity a where ${range} and a.server is not null
  union
  select substr(json_extract(t.value, '$.id'), 1, instr(json_extract(t.value, '$.id'), ':') - 1), a.id
    from activity a, json_each(a.data, '$.tools') t
    where ${range} and a.type = 'preflight' and instr(json_extract(t.value, '$.id'), ':') > 1`

/** Each refused tool's class by its reason (lib/preflight/taxonomy.ts `reasonVerdicts`): what a check counts under besides its verdict. */
export type ReasonClasses = Readonly<Record<string, string>>

/**
 * The classes of the check records in `checks` (a CTE with id, at, surface, actor, verdict and
 * data, beside a one-row `classes(map)` holding ReasonClasses as JSON), one row per check and
 * class: its set verdict, and the class of each tool it refused. The set verdict is only the
 * worst class, so a check with 1 unknown id and 9 blocked tools counted by it alone says
 * "blocked 0"; counted under each class it holds, it is one unknown_ids check and one blocked
 * check. Checks, not tools, stay the unit: a check of 200 ids weighs what a check of one does,
 * as the list it links to shows checks. A check is `ready` only when its verdict is.
 */
export const checkClasses = `
  select c.id, c.at, c.surface, c.actor, coalesce(c.verdict, '') as class from checks c
  union
  select c.id, c.at, c.surface, c.actor, coalesce(json_extract((select map from classes), '$.' || json_extract(t.value, '$.reason')), 'blocked')
    from checks c, json_each(c.data, '$.tools') t
    where json_extract(t.value, '$.status') <> 'ready' and json_extract(t.value, '$.reason') is not null`

/** The per-minute counts' unit. */
export const MINUTE = 60_000

/**
 * A tool.call record `c`'s outcome as far as `through` reaches ('' while none is recorded there):
 * on its own record (a call that never ran), or on the outcome record naming it, found through
 * the request-id index.
 */
// (the unary + keeps the planner on the (request_id, id) index: by (type, id) it would read every outcome up to `through`, per call)
const callOutcomeThrough = (through: string) => `coalesce(json_extract(c.data, '$.outcome'), (select json_extract(o.data, '$.outcome') from activity o
  where o.request_id = c.request_id and +o.type = 'tool.call_outcome' and json_extract(o.data, '$.call') = c.id and o.id <= ${through} limit 1), '')`

/**
 * Outcome records in (@from, @to] of calls up to @from, counted then without an outcome: per
 * minute, outcome, surface and actor of the call. Each outcome is the outer loop, its call a
 * rowid lookup.
 */
const settledCalls = `select (c.at / ${MINUTE}) * ${MINUTE} as m, json_extract(o.data, '$.outcome') as v, coalesce(c.surface, '') as s, c.actor as a, count(*) as n
  from activity o cross join activity c on c.id = json_extract(o.data, '$.call')
  where o.id > @from and o.id <= @to and o.type = 'tool.call_outcome' and c.id <= @from and c.type = 'tool.call' and json_extract(c.data, '$.outcome') is null
  group by 1, 2, 3, 4`

const BATCH = 5_000

type Connection = Db['$client']
const statements = new WeakMap<Connection, ReturnType<typeof prepare>>()
function prepare(client: Connection) {
  return {
    through: client.prepare('select servers_through from activity_index where id = 1').pluck(),
    upTo: client.prepare('select max(id) from (select id from activity where id > ? order by id limit ?)').pluck(),
    fill: client.prepare(`insert or ignore into activity_servers (server, activity_id) select server, activity_id from (${recordServers('a.id > @from and a.id <= @to')})`),
    // the minutes' verdict column holds a check's class (`checkClasses`): each check counts once under each of its classes
    count: client.prepare(`with classes(map) as (select @classes),
        checks as (select id, at, surface, actor, verdict, data from activity where id > @from and id <= @to and type = 'preflight')
      insert into activity_check_minutes (minute, verdict, surface, actor, checks)
      select (at / ${MINUTE}) * ${MINUTE}, class, coalesce(surface, ''), actor, count(*) from (${checkClasses}) where true group by 1, 2, 3, 4
      on conflict (minute, verdict, surface, actor) do update set checks = checks + excluded.checks`),
    // the ids as the outer loop (CROSS JOIN), each a rowid lookup: \`id in (json_each)\` could be planned as a scan of every record
    uncount: client.prepare(`with classes(map) as (select @classes),
        checks as (select r.id, r.at, r.surface, r.actor, r.verdict, r.data from json_each(@ids) k cross join activity r on r.id = k.value
          where r.id <= @through and r.type = 'preflight')
      update activity_check_minutes set checks = checks - g.n from (
        select (at / ${MINUTE}) * ${MINUTE} as m, class as v, coalesce(surface, '') as s, actor as a, count(*) as n from (${checkClasses}) group by 1, 2, 3, 4) as g
      where minute = g.m and verdict = g.v and surface = g.s and actor = g.a`),
    dropEmpty: client.prepare('delete from activity_check_minutes where minute between @from and @to and checks <= 0'),
    countCalls: client.prepare(`insert into activity_call_minutes (minute, outcome, surface, actor, calls)
      select (c.at / ${MINUTE}) * ${MINUTE}, ${callOutcomeThrough('@to')}, coalesce(c.surface, ''), c.actor, count(*) from activity c
      where c.id > @from and c.id <= @to and c.type = 'tool.call' group by 1, 2, 3, 4
      on conflict (minute, outcome, surface, actor) do update set calls = calls + excluded.calls`),
    settleOut: client.prepare(`update activity_call_minutes set calls = calls - g.n from (select m, s, a, sum(n) as n from (${settledCalls}) group by 1, 2, 3) as g
      where minute = g.m and outcome = '' and surface = g.s and actor = g.a`),
    settleDrop: client.prepare(`delete from activity_call_minutes where outcome = '' and calls <= 0 and minute in (select m from (${settledCalls}))`),
    settleIn: client.prepare(`insert into activity_call_minutes (minute, outcome, surface, actor, calls) select m, v, s, a, n from (${settledCalls}) where true
      on conflict (minute, outcome, surface, actor) do update set calls = calls + excluded.calls`),
    uncountCalls: client.prepare(`update activity_call_minutes set calls = calls - g.n from (
        select (c.at / ${MINUTE}) * ${MINUTE} as m, ${callOutcomeThrough('@through')} as v, coalesce(c.surface, '') as s, c.actor as a, count(*) as n
        from json_each(@ids) k cross join activity c on c.id = k.value where c.id <= @through and c.type = 'tool.call' group by 1, 2, 3, 4) as g
      where minute = g.m and outcome = g.v and surface = g.s and actor = g.a`),
    dropEmptyCalls: client.prepare('delete from activity_call_minutes where minute between @from and @to and calls <= 0'),
    advance: client.prepare('insert into activity_index (id, servers_through) values (1, ?) on conflict (id) do update set servers_through = excluded.servers_through'),
    unindexed: client.prepare(`select activity_id from (${recordServers('a.id > @from')}) where server = @server order by activity_id desc`).pluck(),
  }
}
const statementsOf = (db: DbLike) => {
  let st = statements.get(db.$client)
  if (!st) statements.set(db.$client, (st = prepare(db.$client)))
  return st
}

/** The id through which activity_servers is complete. */
export const indexedThrough = (db: DbLike): number => (statementsOf(db).through.get() as number | undefined) ?? 0

/** Ids of the records past the watermark that concern `server`, newest first (a short tail while the server runs). */
export const unindexedFor = (db: DbLike, server: string): number[] => statementsOf(db).unindexed.all({ from: indexedThrough(db), server }) as number[]

/** Index the next batch of records; resolves to true while there was work (false: caught up). */
export async function indexActivityServers(db: Db, classes: ReasonClasses, batch = BATCH): Promise<boolean> {
  // caught up: no write lock taken at all (other processes share this file)
  if (statementsOf(db).upTo.get(indexedThrough(db), 1) === null) return false
  return writeRecords(db, (tx) => {
    const st = statementsOf(tx)
    const from = indexedThrough(tx)
    const to = st.upTo.get(from, batch) as number | null
    if (to === null) return false
    st.fill.run({ from, to })
    st.count.run({ from, to, classes: JSON.stringify(classes) })
    // calls up to `from` whose outcome this batch reaches leave '' for it, before the batch's own calls are counted
    st.settleOut.run({ from, to })
    st.settleDrop.run({ from, to })
    st.settleIn.run({ from, to })
    st.countCalls.run({ from, to })
    st.advance.run(to)
    return true
  })
}

/**
 * Take the records about to be deleted (`ids`, inside the caller's transaction) out of the
 * per-minute counts, so the chart keeps agreeing with the log after a prune. A call goes with
 * its outcome, so each deleted call leaves the outcome it is counted under.
 */
export function uncountRecords(tx: DbLike, classes: ReasonClasses, ids: number[], span: { from: number; to: number }): void {
  const st = statementsOf(tx)
  const through = indexedThrough(tx)
  st.uncount.run({ ids: JSON.stringify(ids), through, classes: JSON.stringify(classes) })
  st.uncountCalls.run({ ids: JSON.stringify(ids), through })
  const minutes = { from: Math.floor(span.from / MINUTE) * MINUTE, to: span.to }
  st.dropEmpty.run(minutes)
  st.dropEmptyCalls.run(minutes)
}
