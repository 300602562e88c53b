import 'server-only'
import type { Db, DbLike } from '@/db/client'
import { writeTransaction } from '@/db/write'

/**
 * The server filter's index, activity_servers, is derived from the records: a record concerns
 * its own `server`, and a check every server its well-formed ids name. It is filled in batches,
 * off the request path: written with each record, its ten scattered index pages made every
 * check's commit (and fsync) two to three times dearer. Readers cover the records past the
 * watermark themselves (`unindexedFor`), so the filter is exact at every moment.
 */
const recordServers = (range: string) => `
  select a.server as server, a.id as activity_id from activity a where ${range} and a.server is not null
  union
  select substr(json_extract(t.value, '$.id'), 1, instr(json_extract(t.value, '$.id'), ':') - 1), a.id
    from activity a, json_each(a.data, '$.tools') t
    where ${range} and a.type = 'preflight' and instr(json_extract(t.value, '$.id'), ':') > 1`

const BATCH = 5_000

type Connection = Db['$client']
const statements = new WeakMap<Connection, ReturnType<typeof prepare>>()
function prepare(client: Connection) {
  return {
    through: client.prepare('select servers_through from activity_index where id = 1').pluck(),
    upTo: client.prepare('select max(id) from (select id from activity where id > ? order by id limit ?)').pluck(),
    fill: client.prepare(`insert or ignore into activity_servers (server, activity_id) select server, activity_id from (${recordServers('a.id > @from and a.id <= @to')})`),
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
export async function indexActivityServers(db: Db, batch = BATCH): Promise<boolean> {
  // caught up: no write lock taken at all (other processes share this file)
  if (statementsOf(db).upTo.get(indexedThrough(db), 1) === null) return false
  return writeTransaction(db, (tx) => {
    const st = statementsOf(tx)
    const from = indexedThrough(tx)
    const to = st.upTo.get(from, batch) as number | null
    if (to === null) return false
    st.fill.run({ from, to })
    st.advance.run(to)
    return true
  })
}

