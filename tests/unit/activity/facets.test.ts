import { describe, expect, it } from 'vitest'
import { transactionOn } from '@/db/client'
import { activityFacet } from '@/db/queries/activity'
import { openDb } from '@/lib/server/database'
import { insertActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'

const NOW = Date.parse('2026-12-03T10:00:00Z')

// 100 000 real inserts (each chained) take ~20 s on a quiet 2-core machine and several times that
// on a loaded one: the limit is there to catch a hang, not to set a pace
describe('activity facets', { timeout: 240_000 }, () => {
  it('count the newest `window` matching records only, most first then by value, at most `top`, at 100 000 records', () => {
    const db = openDb(':memory:')
    transactionOn(db, (tx) => {
      for (let i = 0; i < 100_000; i++) {
        const verdict = i % 4 === 0 ? 'blocked' : 'ready'
        insertActivity(tx, { requestId: mintRequestId(NOW), type: 'preflight', actor: `token:t${i % 10}`, verdict, at: NOW + i, data: { ids_raw: 1, ids_unique: 1, tools: [], duration_ms: 0 } })
      }
      insertActivity(tx, { requestId: mintRequestId(NOW), type: 'tool.call', actor: 'token:rare', server: 'notes', at: NOW, data: { target: 'notes:x', arguments_hash: '0'.repeat(64) } })
    })
    const bounds = { window: 10_000, top: 3 }
    // the newest 10 000: the call and 9 999 checks
    expect(activityFacet(db, {}, 'type', bounds)).toEqual([{ value: 'preflight', count: 9_999 }, { value: 'tool.call', count: 1 }])
    expect(activityFacet(db, {}, 'verdict', bounds)).toEqual([{ value: 'ready', count: 7_500 }, { value: 'blocked', count: 2_499 }])
    const actors = activityFacet(db, {}, 'actor', bounds)
    // checks 90 001–99 999: t0 has 999 of them, the others 1 000 each, ties by name
    expect(actors).toEqual([{ value: 'token:t1', count: 1_000 }, { value: 'token:t2', count: 1_000 }, { value: 'token:t3', count: 1_000 }])
    expect(activityFacet(db, { verdict: 'blocked' }, 'actor', { window: 100_000, top: 8 })).toEqual(
      [0, 2, 4, 6, 8].map((t) => ({ value: `token:t${t}`, count: 5_000 })))
    // a rare actor: the window never fills, and its (actor, id) index finds its one record (tests/unit/activity/actor-index.test.ts)
    expect(activityFacet(db, { actor: 'token:rare' }, 'type', bounds)).toEqual([{ value: 'tool.call', count: 1 }])
  })
})
