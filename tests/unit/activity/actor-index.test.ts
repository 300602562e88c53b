import { describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { activityFacet, listActivity } from '@/db/queries/activity'
import { openDb } from '@/lib/server/database'

const RECORDS = 20_000
const RARE = 'token:rare'

/** A log of common actors with a rare one's three records among them, the oldest near the start. */
function log(): Db {
  const db = openDb(':memory:')
  db.$client.exec(`with recursive c(i) as (select 1 union all select i + 1 from c where i < ${RECORDS})
    insert into activity (request_id, at, type, actor, verdict, data)
    select 'req_' || i, i, case when i % 3 = 0 then 'tool.call' else 'preflight' end,
      case when i in (7, 9000, 15000) then '${RARE}' else 'token:t' || (i % 10) end, case when i % 3 = 0 then null else 'ready' end, '{}' from c`)
  return db
}

/** Each statement `run` executes, with the parameters it ran with (the queries are drizzle's: this is their real SQL). */
function statementsOf(db: Db, run: () => void): { sql: string; params: unknown[] }[] {
  const seen: { sql: string; params: unknown[] }[] = []
  const client = db.$client
  const prepare = client.prepare
  client.prepare = ((source: string) => {
    const statement = prepare.call(client, source)
    const spy: typeof statement = new Proxy(statement, {
      get(target, key) {
        const value = Reflect.get(target, key)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (key === 'all' || key === 'get' || key === 'iterate') seen.push({ sql: source, params: args })
          const out = value.apply(target, args)
          return out === target ? spy : out // raw() and pluck() hand back the statement
        }
      },
    })
    return spy
  }) as typeof client.prepare
  try {
    run()
  } finally {
    client.prepare = prepare
  }
  return seen
}

const planOf = (db: Db, s: { sql: string; params: unknown[] }) =>
  db.$client.prepare(`explain query plan ${s.sql}`).all(...s.params) as { id: number; parent: number; detail: string }[]

describe('the actor index', () => {
  it.each([['before', false], ['after', true]])('a rare actor’s page and facets seek (actor, id), %s the planner has statistics', (_, analyzed) => {
    const db = log()
    if (analyzed) db.$client.exec('ANALYZE') // what the upkeep worker gives the server connection (db/checkpointer.ts)
    const bounds = { window: 10_000, top: 8 }
    let page: number[] = []
    const facets: Record<string, unknown> = {}
    const statements = statementsOf(db, () => {
      page = listActivity(db, { actor: RARE, limit: 51 }).map((r) => r.id)
      for (const field of ['type', 'actor', 'verdict'] as const) facets[field] = activityFacet(db, { actor: RARE }, field, bounds)
    })
    expect(page).toEqual([15000, 9000, 7])
    expect(facets).toEqual({
      type: [{ value: 'tool.call', count: 2 }, { value: 'preflight', count: 1 }],
      actor: [{ value: RARE, count: 3 }],
      verdict: [{ value: 'ready', count: 1 }],
    })
    expect(statements).toHaveLength(4)
    for (const s of statements) {
      const plan = planOf(db, s)
      const shown = plan.map((p) => p.detail).join('; ')
      const onActivity = plan.filter((p) => /\bactivity\b/.test(p.detail))
      // one seek of the actor's records, newest first off the index itself: no scan of the log, and
      // no sort beside it (the facet's sort of its counted groups is outside, over the window)
      expect(onActivity, shown).toHaveLength(1)
      expect(onActivity[0].detail, shown).toMatch(/^SEARCH activity USING (COVERING )?INDEX activity_actor \(actor=\?/)
      expect(plan.filter((p) => p.parent === onActivity[0].parent && /ORDER BY/.test(p.detail)), shown).toEqual([])
    }
  })
})
