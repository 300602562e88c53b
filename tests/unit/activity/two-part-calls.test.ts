import { describe, expect, it } from 'vitest'
import { transactionOn } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { listActivity } from '@/db/queries/activity'
import { activity, runtimeLease } from '@/db/schema'
import { CallRecorder } from '@/lib/activity/call-record'
import { presentRecords } from '@/lib/activity/present-records'
import { OUTCOME_UNKNOWN } from '@/lib/activity/present'
import { insertActivity } from '@/lib/activity/record'
import { pruneActivity } from '@/lib/activity/retention'
import { argumentsHash, canonicalJson } from '@/lib/preflight/hash'

const DAY = 24 * 60 * 60 * 1000
const identity = (requestId: string, args: unknown = { q: 1 }) => ({ requestId, actor: 'token:a', tier: 'agent' as const, server: 's', target: 's:t', args })
const holdLease = (db: ReturnType<typeof openDb>, instance: string, expiresAt: number) =>
  db.insert(runtimeLease).values({ id: 1, instance, pid: process.pid, startedAt: 0, heartbeatAt: 0, expiresAt })
    .onConflictDoUpdate({ target: runtimeLease.id, set: { instance, expiresAt } }).run()

describe('a call recorded in two parts', () => {
  it('is running while its runtime holds the lease, ended once its outcome lands, and "outcome unknown" once the runtime is gone', async () => {
    const db = openDb(':memory:')
    holdLease(db, 'rt_live', Date.now() + 60_000)
    const recorder = new CallRecorder(db, identity('req_a'))
    let release!: () => void
    const upstream = new Promise<string>((r) => (release = () => r('result')))
    const answer = recorder.forward({ runtime: 'rt_live' }, () => upstream)
    // committed while the upstream works: the reader sees a running call
    await expect.poll(() => listActivity(db, { requestId: 'req_a' }).length).toBe(1)
    const [call] = listActivity(db, { requestId: 'req_a' })
    expect(call).toMatchObject({ type: 'tool.call', actor: 'token:a', tier: 'agent', server: 's', data: { target: 's:t', arguments_hash: argumentsHash(canonicalJson({ q: 1 })), runtime: 'rt_live' } })
    expect(presentRecords(db, [call])[0]).toMatchObject({ call: { state: 'running' }, summary: 's:t: running' })
    release()
    expect(await answer).toBe('result')
    await recorder.end({ outcome: 'ok' })
    await expect.poll(() => listActivity(db, { requestId: 'req_a' }).length).toBe(2)
    const [outcome] = listActivity(db, { requestId: 'req_a' })
    expect(outcome).toMatchObject({ type: 'tool.call_outcome', data: { call: call.id, target: 's:t', outcome: 'ok' } })
    expect(presentRecords(db, [call])[0]).toMatchObject({ call: { state: 'ended', end: { outcome: 'ok' } }, summary: expect.stringMatching(/^s:t: ok in \d+ ms$/) })

    // a call forwarded by a runtime that is gone (its lease lapsed, or another took over) never got its outcome
    const lost = new CallRecorder(db, identity('req_b'))
    await lost.forward({ runtime: 'rt_live' }, async () => 'answered')
    const [open] = listActivity(db, { requestId: 'req_b' })
    expect(presentRecords(db, [open])[0].call).toEqual({ state: 'running' })
    holdLease(db, 'rt_next', Date.now() + 60_000)
    expect(presentRecords(db, [open])[0]).toMatchObject({ call: { state: 'unknown' }, summary: `s:t: ${OUTCOME_UNKNOWN}` })
  })

  it('a call that never reached the upstream is one record, committed before the answer; a failed commit fails the answer', async () => {
    const db = openDb(':memory:')
    await new CallRecorder(db, identity('req_r')).end({ outcome: 'refused', reason: 'not_found' })
    expect(presentRecords(db, listActivity(db, { requestId: 'req_r' }))).toMatchObject([{ type: 'tool.call', data: { outcome: 'refused', reason: 'not_found' }, call: { state: 'ended' } }])
    db.$client.exec(`CREATE TRIGGER no_calls BEFORE INSERT ON activity BEGIN SELECT RAISE(ABORT, 'no room'); END`)
    await expect(new CallRecorder(db, identity('req_x')).end({ outcome: 'refused', reason: 'not_found' })).rejects.toThrow("the call's record could not be committed, so it is not answered: no room")
    await expect(new CallRecorder(db, identity('req_y')).forward({ runtime: 'rt' }, async () => 'result')).rejects.toThrow(/its result is withheld .*no room/)
  })

  it('an upstream error is recorded trimmed', async () => {
    const db = openDb(':memory:')
    const recorder = new CallRecorder(db, identity('req_e'))
    await recorder.forward({ runtime: 'rt' }, async () => undefined)
    await recorder.end({ outcome: 'failed', error: 'x'.repeat(100_000) })
    await expect.poll(() => listActivity(db, { requestId: 'req_e' }).length).toBe(2)
    const [outcome] = listActivity(db, { requestId: 'req_e' })
    expect(outcome.type === 'tool.call_outcome' && outcome.data.error!.length).toBeLessThan(600)
  })

  it('the type filter tool.call finds both parts; retention prunes a call with its outcome, even an outcome newer than the cutoff', async () => {
    const db = openDb(':memory:')
    const now = Date.now()
    transactionOn(db, (tx) => {
      const old = insertActivity(tx, { requestId: 'req_old', type: 'tool.call', actor: 'token:a', at: now - 10 * DAY, data: { target: 's:t', arguments_hash: 'h' } })
      insertActivity(tx, { requestId: 'req_old', type: 'tool.call_outcome', actor: 'token:a', at: now - 1 * DAY, data: { call: old.id, target: 's:t', outcome: 'ok', duration_ms: 9 * DAY } })
      const kept = insertActivity(tx, { requestId: 'req_new', type: 'tool.call', actor: 'token:a', at: now - DAY, data: { target: 's:t', arguments_hash: 'h' } })
      insertActivity(tx, { requestId: 'req_new', type: 'tool.call_outcome', actor: 'token:a', at: now, data: { call: kept.id, target: 's:t', outcome: 'ok', duration_ms: 1 } })
    })
    expect(listActivity(db, { type: 'tool.call' }).map((r) => `${r.requestId} ${r.type}`))
      .toEqual(['req_new tool.call_outcome', 'req_new tool.call', 'req_old tool.call_outcome', 'req_old tool.call'])
    expect(await pruneActivity(db, now - 5 * DAY, 'test')).toBe(2)
    expect(db.select({ r: activity.requestId, t: activity.type }).from(activity).all().filter((r) => r.t !== 'activity.pruned'))
      .toEqual([{ r: 'req_new', t: 'tool.call' }, { r: 'req_new', t: 'tool.call_outcome' }])
  })
})
