import { describe, expect, it } from 'vitest'
import { transactionOn } from '@/db/client'
import { REQUEST_IDS_WITH_PREFIX, requestIdsStartingWith } from '@/db/queries/activity'
import { openDb } from '@/lib/server/database'
import { insertActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import { globalSearch } from '@/lib/dashboard/search'

const NOW = Date.parse('2026-12-03T10:00:00Z')
const check = (requestId: string, at = NOW) => ({ requestId, type: 'preflight' as const, actor: 'token:a', verdict: 'ready', at, data: { ids_raw: 1, ids_unique: 1, tools: [], duration_ms: 0 } })

describe('request ids by prefix', () => {
  it('finds the ids a partial id begins, newest record first, at most the limit, and nothing else', () => {
    const db = openDb(':memory:')
    // minted a second apart: they share their leading time characters, then differ
    const minted = Array.from({ length: 12 }, (_, i) => mintRequestId(NOW + i * 1000))
    transactionOn(db, (tx) => {
      for (const id of minted) insertActivity(tx, check(id))
      // neighbours just outside a prefix, on either side of its range
      for (const id of ['ci-run-41', 'ci-run-42', 'ci-run-42b', 'ci-run-43', 'ci-run-4', 'ci-ruo-42']) insertActivity(tx, check(id))
      // an older id recorded again later is newer than one recorded once in between
      insertActivity(tx, check('ci-run-42b'))
    })
    const shared = minted[0].slice(0, 9) // "req_" + the time characters the twelve share
    expect(minted.every((id) => id.startsWith(shared))).toBe(true)
    expect(requestIdsStartingWith(db, shared, 5)).toEqual(minted.slice(-5).reverse())
    expect(requestIdsStartingWith(db, shared, 50)).toEqual([...minted].reverse())
    expect(requestIdsStartingWith(db, minted[3].slice(0, 20), 5)).toEqual([minted[3]])
    expect(requestIdsStartingWith(db, minted[3], 5)).toEqual([minted[3]])
    expect(requestIdsStartingWith(db, 'ci-run-42', 5)).toEqual(['ci-run-42b', 'ci-run-42'])
    expect(requestIdsStartingWith(db, 'ci-run-4', 5)).toEqual(['ci-run-42b', 'ci-run-4', 'ci-run-43', 'ci-run-42', 'ci-run-41'])
    // case-sensitive, as request ids are
    expect(requestIdsStartingWith(db, shared.toLowerCase(), 5)).toEqual([])
    expect(requestIdsStartingWith(db, 'req_0000000', 5)).toEqual([])
  })

  it('seeks the request-id index, never scanning activity', () => {
    const db = openDb(':memory:')
    const plan = (db.$client.prepare(`explain query plan ${REQUEST_IDS_WITH_PREFIX}`)
      .all({ lo: 'req_', hi: 'req_\uffff', limit: 8 }) as { detail: string }[]).map((p) => p.detail)
    // the first id, each next id, and each id's newest record: three seeks, each on the index
    const onActivity = plan.filter((d) => /\bactivity\b/.test(d))
    expect(onActivity).toHaveLength(3)
    for (const d of onActivity) expect(d).toMatch(/^SEARCH activity USING COVERING INDEX activity_request_id \(request_id/)
  })

  it('bounded: a prefix matching 100,000 requests answers its newest few, newest first', () => {
    const db = openDb(':memory:')
    const start = NOW - 100_000 * 1000
    const ids = Array.from({ length: 100_000 }, (_, i) => mintRequestId(start + i * 1000))
    const insert = db.$client.prepare("insert into activity (request_id, at, type, actor, data) values (?, ?, 'preflight', 'token:a', '{}')")
    db.$client.transaction(() => { for (const [i, id] of ids.entries()) insert.run(id, start + i * 1000) })()
    // its newest few, found by seeking (the query plan above): speed is the bench's, not a test's
    expect(requestIdsStartingWith(db, 'req_', 8)).toEqual(ids.slice(-8).reverse())
  })

  it('the header search lists the requests a pasted partial id begins, and a short text only the id it is', () => {
    const db = openDb(':memory:')
    const [older, newer] = [mintRequestId(NOW), mintRequestId(NOW + 1000)]
    transactionOn(db, (tx) => { for (const id of [older, newer, 'abc']) insertActivity(tx, check(id)) })
    const requests = (q: string) => globalSearch(db, q).filter((h) => h.kind === 'request')
    expect(requests(newer.slice(0, 10))).toEqual([newer, older].map((id) => ({ kind: 'request', label: id, href: `/activity/${id}` })))
    expect(requests(`  ${older}  `).map((h) => h.label)).toEqual([older])
    expect(requests('abc').map((h) => h.label)).toEqual(['abc'])
    // under eight characters a text is no prefix: "req_" alone would list every request
    expect(requests('req_')).toEqual([])
    expect(requests('ab')).toEqual([])
    expect(requests('req_ with space')).toEqual([])
  })
})
