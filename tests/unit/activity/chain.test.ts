import { describe, expect, it } from 'vitest'
import { transactionOn, type Db } from '@/db/client'
import { chainHead, chainLinks } from '@/db/queries/activity'
import { openDb } from '@/lib/server/database'
import { appendActivity, insertActivity } from '@/lib/activity/record'
import { pruneActivity } from '@/lib/activity/retention'
import { verifyChain } from '@/lib/core/activity-chain'

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.parse('2026-11-30T12:00:00Z')
const check = (requestId: string, at = NOW) => ({ requestId, type: 'preflight' as const, actor: 'token:a', verdict: 'ready', at, data: { ids_raw: 1, ids_unique: 1, tools: [], duration_ms: 0 } })
const verify = (db: Db) => verifyChain(chainLinks(db))

/** A log of `n` checks, written the way the server writes them (group commits of several). */
async function logOf(n: number, at = NOW): Promise<Db> {
  const db = openDb(':memory:')
  await Promise.all(Array.from({ length: n }, (_, i) => appendActivity(db, check(`req_${i}`, at))))
  return db
}

describe('the tamper-evident activity chain', () => {
  it('a log written by toolgate verifies, and its head is the newest record', async () => {
    const db = await logOf(10)
    await appendActivity(db, { requestId: 'req_change', type: 'settings.changed', actor: 'cli:alice', data: { target: 'settings', before: { a: 1 }, after: { a: 2 } } } as never)
    const report = verify(db)
    expect(report).toMatchObject({ ok: true, records: 11, beforeChain: 0, anchor: { id: 1, prevHash: '' } })
    expect(report.ok && report.head).toEqual(chainHead(db))
    expect(chainHead(db)).toMatchObject({ id: 11, hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
  })

  it('editing any column of one record names that record', async () => {
    for (const edit of ["data = '{\"ids_raw\":2}'", "actor = 'token:b'", "verdict = 'blocked'", 'at = at + 1', "request_id = 'req_x'"]) {
      const db = await logOf(6)
      db.$client.exec(`update activity set ${edit} where id = 4`)
      expect(verify(db), edit).toMatchObject({ ok: false, id: 4, problem: expect.stringContaining('contents were changed') })
    }
  })

  it('deleting a record in the middle names the record after the gap', async () => {
    const db = await logOf(6)
    db.$client.exec('delete from activity where id = 3')
    expect(verify(db)).toMatchObject({ ok: false, id: 4, problem: 'record 4 does not follow record 2: a record between them was deleted or inserted, or the two were reordered' })
  })

  it('swapping two records (hashes and all) names the first that no longer fits', async () => {
    const db = await logOf(6)
    const cols = 'request_id, at, type, surface, actor, tier, verdict, server, data, prev_hash, hash'
    const c = db.$client
    c.exec(`create temp table t as select * from activity where id in (2, 5)`)
    c.exec(`update activity set (${cols}) = (select ${cols} from t where id = 5) where id = 2`)
    c.exec(`update activity set (${cols}) = (select ${cols} from t where id = 2) where id = 5`)
    expect(verify(db)).toMatchObject({ ok: false, id: 2 })
  })

  it('a record written around the chain (no hash) names itself; records from before the chain may only come first', async () => {
    const db = openDb(':memory:')
    db.$client.exec(`insert into activity (request_id, at, type, actor, data) values ('req_old', 1, 'preflight', 't', '{}'), ('req_old2', 2, 'preflight', 't', '{}')`)
    await appendActivity(db, check('req_new'))
    expect(verify(db)).toMatchObject({ ok: true, records: 3, beforeChain: 2, anchor: { id: 3 } })
    db.$client.exec(`insert into activity (request_id, at, type, actor, data) values ('req_forged', 3, 'preflight', 't', '{}')`)
    expect(verify(db)).toMatchObject({ ok: false, id: 4, problem: expect.stringContaining('has no hash') })
  })

  it('pruning keeps it whole: the first record kept anchors the chain', async () => {
    const db = openDb(':memory:')
    transactionOn(db, (tx) => {
      for (let i = 0; i < 1_200; i++) insertActivity(tx, check(`old_${i}`, NOW - 100 * DAY))
      for (let i = 0; i < 5; i++) insertActivity(tx, check(`new_${i}`))
    })
    expect(await pruneActivity(db, NOW - 90 * DAY, 'test')).toBe(1_200)
    expect(verify(db)).toMatchObject({ ok: true, records: 6, anchor: { id: 1_201, prevHash: expect.stringMatching(/^[0-9a-f]{64}$/) } })
  })

  it('a call whose outcome landed after the cutoff stays, with what follows it, until both can go', async () => {
    const db = openDb(':memory:')
    const call = (requestId: string, at: number) => ({ requestId, type: 'tool.call' as const, actor: 'token:a', at, data: { tool: 's:t', args_bytes: 0 } } as never)
    let callId = 0
    transactionOn(db, (tx) => {
      insertActivity(tx, check('old_0', NOW - 100 * DAY))
      callId = insertActivity(tx, call('req_call', NOW - 100 * DAY)).id
      insertActivity(tx, check('new_0'))
      insertActivity(tx, { requestId: 'req_call', type: 'tool.call_outcome', actor: 'token:a', at: NOW, data: { call: callId, outcome: 'ok', duration_ms: 5 } } as never)
    })
    expect(await pruneActivity(db, NOW - 90 * DAY, 'test')).toBe(1) // only the record before the call
    expect(verify(db)).toMatchObject({ ok: true, anchor: { id: 2 } })
    expect(await pruneActivity(db, NOW + 1, 'test')).toBe(3) // the call, what followed it, its outcome
    expect(verify(db)).toMatchObject({ ok: true, records: 2 }) // the two prunes' own records
  })
})
