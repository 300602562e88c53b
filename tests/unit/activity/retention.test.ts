import { describe, expect, it } from 'vitest'
import { count, eq } from 'drizzle-orm'
import { transactionOn } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { activity, activityServers } from '@/db/schema'
import { insertActivity } from '@/lib/activity/record'
import { activityStorage, PRUNE_BATCH, pruneActivity, retentionCutoff } from '@/lib/activity/retention'
import { updateSettings } from '@/lib/admin/settings'
import { expireCalls, requestCall } from '@/lib/approvals/calls'
import { listCalls } from '@/db/queries/calls'

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.parse('2026-11-30T12:00:00Z') // a fixed clock

describe('activity retention', () => {
  it('prunes records older than the retention window in small batches, and records that it did', async () => {
    const db = openDb(':memory:')
    // 1,200 records 100 days old (with a server link each), 10 from 89 days ago, 5 from today
    transactionOn(db, (tx) => {
      for (let i = 0; i < 1_200; i++) insertActivity(tx, { requestId: `old_${i}`, type: 'preflight', actor: 't', server: 'a', at: NOW - 100 * DAY, data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
      for (let i = 0; i < 10; i++) insertActivity(tx, { requestId: `kept_${i}`, type: 'preflight', actor: 't', at: NOW - 89 * DAY, data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
      for (let i = 0; i < 5; i++) insertActivity(tx, { requestId: `new_${i}`, type: 'preflight', actor: 't', at: NOW, data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
    })
    const cutoff = retentionCutoff(db, NOW)! // default 90 days
    expect(cutoff).toBe(NOW - 90 * DAY)
    const batches: number[] = []
    const deleted = await pruneActivity(db, cutoff, 'test', (n) => batches.push(n))
    expect(deleted).toBe(1_200)
    expect(batches).toEqual([PRUNE_BATCH, 2 * PRUNE_BATCH, 1_200])
    const left = db.select({ r: activity.requestId }).from(activity).all().map((r) => r.r)
    expect(left.filter((r) => r.startsWith('old_'))).toEqual([])
    expect(left.filter((r) => r.startsWith('kept_'))).toHaveLength(10)
    expect(db.select({ n: count() }).from(activityServers).get()!.n).toBe(0) // links go with their records
    expect(db.select().from(activity).where(eq(activity.type, 'activity.pruned')).get()?.data).toEqual({ before: new Date(cutoff).toISOString(), deleted: 1_200 })
    expect(activityStorage(db).oldestAt).toBe(NOW - 89 * DAY)
  })

  it("a pruned record's server links are found through their own index, not by scanning every link", () => {
    const db = openDb(':memory:')
    // the cascade deletes by activity_id; a scan here made one prune batch at a million records take minutes
    const plan = db.$client.prepare('explain query plan delete from activity_servers where activity_id = ?').all(1) as { detail: string }[]
    expect(plan.map((r) => r.detail)).toEqual([expect.stringContaining('USING COVERING INDEX activity_servers_activity (activity_id=?)')])
  })

  it('prunes held calls (their arguments and results) that were over before the cutoff; open ones stay', async () => {
    const db = openDb(':memory:')
    const hold = (n: number, at: number) => requestCall(db, { server: 's', tool: 't', args: { n, blob: 'x'.repeat(10_000) }, caller: 'token:a', requestId: `req_${n}` }, at)
    for (let n = 0; n < 3; n++) await hold(n, NOW - 100 * DAY) // nobody decided: they expire, on the record
    await expireCalls(db, NOW - 99 * DAY)
    await hold(3, NOW - 10 * DAY)
    await expireCalls(db, NOW - 9 * DAY)
    await hold(4, NOW) // still pending
    await pruneActivity(db, NOW - 90 * DAY, 'test')
    expect(listCalls(db).map((c) => `${c.requestId} ${c.status}`)).toEqual(['req_4 pending', 'req_3 expired'])
    expect(db.select().from(activity).where(eq(activity.type, 'activity.pruned')).get()?.data).toMatchObject({ held_calls: 3 })
  })

  it('null keeps everything; the setting is validated', async () => {
    const db = openDb(':memory:')
    await updateSettings(db, { activity_retention_days: null }, { actor: 't' })
    expect(retentionCutoff(db, NOW)).toBeNull()
    await expect(updateSettings(db, { activity_retention_days: 0 }, { actor: 't' })).rejects.toThrow('activity_retention_days: must be at least 1 day (null keeps everything)')
    await updateSettings(db, { activity_retention_days: 7 }, { actor: 't' })
    expect(retentionCutoff(db, NOW)).toBe(NOW - 7 * DAY)
  })
})
