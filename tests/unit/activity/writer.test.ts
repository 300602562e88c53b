import { describe, expect, it, vi } from 'vitest'
import { openDb } from '@/lib/server/database'
import { activity } from '@/db/schema'
import { appendActivity, commitPending, sendAtTurnEnd } from '@/lib/activity/record'

const record = (requestId: string) => ({ requestId, type: 'preflight' as const, actor: 'test', data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })

describe('activity group commit', () => {
  it('records appended together share one transaction, and each resolves with its own row', async () => {
    const db = openDb(':memory:')
    let transactions = 0
    const real = db.transaction.bind(db)
    db.transaction = ((fn: never, config?: never) => { transactions++; return real(fn, config) }) as typeof db.transaction
    const rows = await Promise.all(Array.from({ length: 20 }, (_, i) => appendActivity(db, record(`req_${i}`))))
    expect(transactions).toBe(1)
    expect(rows.map((r) => r.requestId)).toEqual(Array.from({ length: 20 }, (_, i) => `req_${i}`))
    expect(db.select().from(activity).all()).toHaveLength(20)
    // a later turn of the event loop is a new commit
    await appendActivity(db, record('req_late'))
    expect(transactions).toBe(2)
  })

  it('a write gathered in a turn is sent before that turn\'s commit, else at its end, and once', async () => {
    const db = openDb(':memory:')
    const sent: number[] = []
    const send = () => sent.push(db.select().from(activity).all().length)
    // gathered after the record was appended, in the same turn: still sent before it commits
    const committed = appendActivity(db, record('req_a'))
    sendAtTurnEnd(send)
    await committed
    expect(sent).toEqual([0])
    // a turn without a commit: sent when it ends, and not again by a later commit
    sendAtTurnEnd(send)
    await new Promise((r) => setImmediate(r))
    expect(sent).toEqual([0, 1])
    await appendActivity(db, record('req_b'))
    expect(sent).toEqual([0, 1])
  })

  it('a failed commit fails every answer waiting on it, and nothing of it is kept', async () => {
    const db = openDb(':memory:')
    db.$client.exec(`CREATE TRIGGER poison BEFORE INSERT ON activity WHEN NEW.request_id = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`)
    const waiting = ['a', 'b', 'poison', 'c'].map((id) => appendActivity(db, record(id)))
    const outcomes = await Promise.allSettled(waiting)
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected'])
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/poisoned/)
    expect(db.select().from(activity).all()).toEqual([])
    // the next batch is independent
    await expect(appendActivity(db, record('after'))).resolves.toMatchObject({ requestId: 'after' })
  })

  it('a record nobody waits for commits with the next one somebody does: one transaction for both', async () => {
    const db = openDb(':memory:')
    let transactions = 0
    const real = db.transaction.bind(db)
    db.transaction = ((fn: never, config?: never) => { transactions++; return real(fn, config) }) as typeof db.transaction
    let outcomeCommitted = false
    // the clock held (only timers: turns of the event loop still pass), so a loaded machine's
    // slow turns cannot run out the wait alone and the test sees what waits for company
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const outcome = appendActivity(db, record('outcome'), false).then((r) => { outcomeCommitted = true; return r })
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
      expect(outcomeCommitted).toBe(false)
      expect(transactions).toBe(0)
      await appendActivity(db, record('next call'))
      expect(transactions).toBe(1)
      expect((await outcome).requestId).toBe('outcome')
    } finally {
      vi.useRealTimers()
    }
    expect(db.select().from(activity).all().map((r) => r.requestId)).toEqual(['outcome', 'next call'])
  })

  it('a record nobody waits for still commits alone when no other comes, and at once when the server stops', async () => {
    const db = openDb(':memory:')
    await expect(appendActivity(db, record('alone'), false)).resolves.toMatchObject({ requestId: 'alone' })
    const last = appendActivity(db, record('last'), false)
    await commitPending(db)
    expect(db.select().from(activity).all().map((r) => r.requestId)).toEqual(['alone', 'last'])
    await expect(last).resolves.toMatchObject({ requestId: 'last' })
  })
})
