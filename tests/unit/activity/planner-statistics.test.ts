import { describe, expect, it } from 'vitest'
import { startCheckpointer } from '@/db/checkpointer'
import { freshDb } from '@/tests/helpers/db'
import { waitFor } from '@/tests/upstream/harness'
import { loadState } from '@/lib/state/load'
import { statements } from '@/db/queries/preflight-state'
import { benchmarkState } from '@/bench/state'

// what the Activity chart asks for one request's checks (db/queries/activity.ts countRecords)
const requestChecks = `select count(*) from activity where request_id = ? and type = 'preflight' and +at >= 0`
const planOf = (db: ReturnType<typeof freshDb>['db']) =>
  (db.$client.prepare(`explain query plan ${requestChecks}`).all('req_7') as { detail: string }[]).map((r) => r.detail).join('; ')

describe('planner statistics', () => {
  it('the upkeep worker refreshes them and the server connection uses them: one request is found through its own index', async () => {
    const { db } = freshDb()
    db.$client.exec(`with recursive c(i) as (select 0 union all select i + 1 from c where i < 50000)
      insert into activity (request_id, at, type, actor, verdict, data) select 'req_' || (i / 3), i, 'preflight', 'token:a', 'ready', '{}' from c`)
    // never analyzed: the planner guesses, and walks every check
    expect(planOf(db)).toMatch(/USING INDEX activity_type/)
    const upkeep = startCheckpointer(db)
    try {
      await waitFor('the server connection to plan with statistics', () => /USING INDEX activity_request_id/.test(planOf(db)), 20_000)
    } finally {
      await upkeep.stop()
    }
  })

  it('statistics of small tables are not kept: as tools grow, looking one up stays an index search', async () => {
    const { db } = freshDb()
    await loadState(db, benchmarkState(2, 2), 'test')
    const upkeep = startCheckpointer(db)
    try {
      // analyzed (the table exists), then everything but a large activity log dropped again
      await waitFor('the worker to analyze, then keep only useful statistics', () =>
        db.$client.prepare(`select count(*) from sqlite_schema where name = 'sqlite_stat1'`).pluck().get() === 1 &&
        db.$client.prepare(`select count(*) from sqlite_stat1`).pluck().get() === 0, 20_000)
    } finally {
      await upkeep.stop()
    }
    await loadState(db, benchmarkState(200, 20), 'test')
    db.$client.exec('ANALYZE sqlite_schema') // what the server connection does after a refresh
    const plan = (db.$client.prepare(`explain query plan ${statements(db).tools.source}`).all('[]') as { detail: string }[]).map((r) => r.detail).join('; ')
    // kept, "tools has 4 rows" would make this a scan of every tool for each id asked
    expect(plan).toMatch(/SEARCH t USING INDEX sqlite_autoindex_tools_1 \(server_name=\? AND name=\?\)/)
  })
})
