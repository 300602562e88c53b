import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { callCounts, callRecordCounts, countRecords, verdictCounts, type BucketCount, type CallBucketCount } from '@/db/queries/activity'
import { indexActivityServers } from '@/db/queries/activity-index'
import { activityCallMinutes, activityCheckMinutes } from '@/db/schema'
import { insertActivity } from '@/lib/activity/record'
import { pruneActivity } from '@/lib/activity/retention'
import { surfaces } from '@/lib/core/activity'
import { reasonVerdicts } from '@/lib/preflight/taxonomy'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const T0 = Date.UTC(2026, 10, 30, 0, 0, 0)
const verdictsUsed = ['ready', 'blocked', 'unknown_ids', 'degraded_retryable'] as const
const sorted = (rows: BucketCount[]) => [...rows].sort((a, b) => a.bucket - b.bucket || String(a.verdict).localeCompare(String(b.verdict)))

/** 3,000 records over 10 hours at uneven seconds: checks of several verdicts, surfaces and actors, and other records between. */
function fill(db: Db): void {
  let seed = 7
  // a fixed pseudo-random sequence: the high bits of a linear congruential generator, 0 ≤ n < k
  const next = (k = 2 ** 16) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * k)
  // a check's refused tools, of any class or none: the counts take each class a check holds
  const refused = () => [{ id: 'srv1:u', status: 'unavailable', reason: 'not_found' }, { id: 'srv2:b', status: 'unavailable', reason: 'server_disabled' },
    { id: 'srv3:r', status: 'unavailable', reason: 'server_initializing' }].filter(() => next(3) === 0)
  db.$client.transaction(() => {
    for (let i = 0; i < 3_000; i++) {
      const at = T0 + Math.floor((i / 3_000) * 10 * HOUR) + next(997)
      if (next(7) === 0) {
        insertActivity(db, { requestId: `req_${i}`, type: 'tool.approved', actor: 'operator', tier: 'operator', server: 's', at, data: { target: 's:t' } as never })
        continue
      }
      insertActivity(db, {
        requestId: `req_${i % 500}`, type: 'preflight', at,
        surface: surfaces[next(3)], actor: `token:agent${next(4)}`, tier: 'agent', verdict: verdictsUsed[next(4)],
        data: { ids_raw: 1, ids_unique: 1, tools: [{ id: `srv${next(5)}:t`, status: 'ready' }, ...refused()], duration_ms: 0 } as never,
      })
    }
  })()
}

describe('checks per interval for the Activity chart', () => {
  it('the per-minute counts give exactly what counting the records gives, for every filter, before, during and after they catch up, and after a prune', async () => {
    const db = openDb(':memory:')
    fill(db)
    const filters = [{}, { verdict: 'blocked' }, { surface: 'rest' }, { actor: 'token:agent2' }, { verdict: 'ready', surface: 'cli', actor: 'token:agent1' }, { requestId: 'req_42' }, { server: 'srv3' }]
    const windows: [number, number, number][] = [[T0, T0 + 12 * HOUR, HOUR], [T0 + 2 * HOUR, T0 + 3 * HOUR, 5 * MINUTE], [T0 + 1_234, T0 + 5 * HOUR + 77, 30 * MINUTE]]
    const expectSame = () => {
      let compared = 0
      for (const f of filters) for (const [start, end, width] of windows) {
        const expected = sorted(countRecords(db, reasonVerdicts, f, start, end, width))
        expect(sorted(verdictCounts(db, reasonVerdicts, f, start, end, width)), `${JSON.stringify(f)} ${start}–${end}`).toEqual(expected)
        compared += expected.length
      }
      expect(compared).toBeGreaterThan(200) // the cases hold real counts, not empty lists
    }
    expectSame() // nothing derived yet: every record is the tail
    expect(await indexActivityServers(db, reasonVerdicts, 1_000)).toBe(true)
    expectSame() // partly derived
    while (await indexActivityServers(db, reasonVerdicts)) { /* catch up */ }
    expect(db.select().from(activityCheckMinutes).all().length).toBeGreaterThan(100)
    expectSame()
    // a prune takes its records' counts back out (and drops minutes left empty)
    expect(await pruneActivity(db, T0 + 3 * HOUR + 17_000, 'test')).toBeGreaterThan(0)
    expectSame()
    expect(db.select().from(activityCheckMinutes).all().every((m) => m.checks > 0 && m.minute >= T0 + 3 * HOUR)).toBe(true)
    // records older than the watermark pruned, newer ones still a tail: the same again after catching up
    while (await indexActivityServers(db, reasonVerdicts)) { /* catch up */ }
    expectSame()
  })

  it('adds up the per-minute counts rather than the records: a day of checks costs rows per minute, not per check', () => {
    const db = openDb(':memory:')
    const plan = (db.$client.prepare(`explain query plan select * from activity_check_minutes where minute >= ? and minute < ?`).all(0, 1) as { detail: string }[]).map((p) => p.detail).join('; ')
    expect(plan).toMatch(/SEARCH activity_check_minutes USING (INDEX sqlite_autoindex_activity_check_minutes_1|PRIMARY KEY) \(minute>\? AND minute<\?\)/)
  })
  it('count a check under every class it holds: 1 unknown id beside 9 blocked tools is an unknown_ids check and a blocked one', async () => {
    const db = openDb(':memory:')
    const tools = [{ id: 'notes:nope', status: 'unavailable', reason: 'not_found' },
      ...Array.from({ length: 9 }, (_, i) => ({ id: `billing:t${i}`, status: 'unavailable', reason: 'server_not_in_scope' })),
      { id: 'notes:read_note', status: 'ready' }]
    const check = (verdict: string, t: object[], at: number) => insertActivity(db, { requestId: `req_${at}`, type: 'preflight', surface: 'rest', actor: 'token:a', tier: 'agent', verdict, at,
      data: { ids_raw: t.length, ids_unique: t.length, tools: t, duration_ms: 0 } as never })
    check('unknown_ids', tools, T0 + 1_000)
    check('blocked', tools.slice(1), T0 + 2_000)
    check('ready', tools.slice(-1), T0 + 3_000)
    const counts = (f = {}) => Object.fromEntries(sorted(verdictCounts(db, reasonVerdicts, f, T0, T0 + HOUR, HOUR)).map((r) => [r.verdict, r.checks]))
    // a check is ready only when its verdict is: the ready tools beside refused ones add no ready check
    const want = { unknown_ids: 1, blocked: 2, ready: 1 }
    expect(counts()).toEqual(want) // from the records
    while (await indexActivityServers(db, reasonVerdicts)) { /* catch up */ }
    expect(counts()).toEqual(want) // from the minutes
    // a verdict filter picks checks by their verdict, and counts each under its classes still
    expect(counts({ verdict: 'unknown_ids' })).toEqual({ unknown_ids: 1, blocked: 1 })
    expect(await pruneActivity(db, T0 + 1_500, 'test')).toBe(1)
    expect(counts()).toEqual({ blocked: 1, ready: 1 })
  })
  it('the migration that counts classes counts the minutes derived before it as the indexer does, every reason included', async () => {
    const db = openDb(':memory:')
    const reasons = Object.keys(reasonVerdicts)
    db.$client.transaction(() => reasons.forEach((reason, i) => insertActivity(db, { requestId: `req_${i}`, type: 'preflight', surface: 'rest', actor: 'token:a', tier: 'agent',
      verdict: 'blocked', at: T0 + i * MINUTE, data: { ids_raw: 2, ids_unique: 2, tools: [{ id: 's:t', status: 'unavailable', reason }, { id: 's:r', status: 'ready' }], duration_ms: 0 } as never })))()
    while (await indexActivityServers(db, reasonVerdicts)) { /* catch up */ }
    const minutes = () => db.select().from(activityCheckMinutes).all().sort((a, b) => a.minute - b.minute || a.verdict.localeCompare(b.verdict))
    const derived = minutes()
    expect(new Set(derived.map((m) => m.verdict))).toEqual(new Set(['blocked', 'unknown_ids', 'degraded_retryable']))
    for (const statement of readFileSync('db/migrations/0025_check_classes.sql', 'utf8').split('--> statement-breakpoint')) db.$client.exec(statement)
    expect(minutes()).toEqual(derived)
  })
})

const sortedCalls = (rows: CallBucketCount[]) => [...rows].sort((a, b) => a.bucket - b.bucket || String(a.outcome).localeCompare(String(b.outcome)))

/**
 * 3,000 records over 10 hours: tool calls in two parts (the call, its outcome a few records
 * later), calls refused with their end on their own record, calls that never got an outcome,
 * checks between.
 */
function fillCalls(db: Db): void {
  let seed = 11
  const next = (k = 2 ** 16) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * k)
  const pending: { due: number; call: number; requestId: string; at: number }[] = []
  const outcomes = ['ok', 'tool_error', 'upstream_error', 'cancelled'] as const
  db.$client.transaction(() => {
    for (let i = 0; i < 3_000; i++) {
      const at = T0 + Math.floor((i / 3_000) * 10 * HOUR) + next(997)
      const due = pending.findIndex((p) => p.due <= i)
      if (due >= 0) {
        const [p] = pending.splice(due, 1)
        insertActivity(db, { requestId: p.requestId, type: 'tool.call_outcome', surface: 'mcp-shape-a', actor: 'token:agent0', tier: 'agent', server: 'srv', at: Math.max(at, p.at),
          data: { target: 'srv:t', call: p.call, outcome: outcomes[next(4)], duration_ms: 3 } as never })
        continue
      }
      const kind = next(10)
      const requestId = `req_${i}`
      const common = { requestId, type: 'tool.call' as const, surface: surfaces[next(3)], actor: `token:agent${next(4)}`, tier: 'agent' as const, server: 'srv', at }
      if (kind < 6) {
        const { id } = insertActivity(db, { ...common, data: { target: 'srv:t', arguments_hash: '0'.repeat(64) } as never })
        // most end soon, some much later (across index batches), a few never (toolgate stopped)
        if (next(10) > 0) pending.push({ due: i + 1 + (next(4) === 0 ? next(900) : next(5)), call: id, requestId, at })
      } else if (kind < 8) {
        insertActivity(db, { ...common, data: { target: 'srv:t', arguments_hash: '0'.repeat(64), outcome: 'refused', reason: 'tool_pending_approval', duration_ms: 0 } as never })
      } else {
        insertActivity(db, { requestId, type: 'preflight', surface: 'rest', actor: 'token:agent1', tier: 'agent', verdict: 'ready', at, data: { ids_raw: 1, ids_unique: 1, tools: [{ id: 'srv:t', status: 'ready' }], duration_ms: 0 } as never })
      }
    }
  })()
}

describe('tool calls per interval and outcome for the Activity chart', () => {
  it('the per-minute counts give exactly what counting the records gives, for every filter, before, during and after they catch up, and after a prune', async () => {
    const db = openDb(':memory:')
    fillCalls(db)
    const filters = [{}, { surface: 'rest' }, { actor: 'token:agent2' }, { surface: 'cli', actor: 'token:agent1' }, { type: 'tool.call' }, { requestId: 'req_42' }, { server: 'srv' }]
    const windows: [number, number, number][] = [[T0, T0 + 12 * HOUR, HOUR], [T0 + 2 * HOUR, T0 + 3 * HOUR, 5 * MINUTE], [T0 + 1_234, T0 + 5 * HOUR + 77, 30 * MINUTE]]
    const expectSame = () => {
      let compared = 0
      for (const f of filters) for (const [start, end, width] of windows) {
        const expected = sortedCalls(callRecordCounts(db, f, start, end, width))
        expect(sortedCalls(callCounts(db, f, start, end, width)), `${JSON.stringify(f)} ${start}–${end}`).toEqual(expected)
        compared += expected.length
      }
      expect(compared).toBeGreaterThan(200) // real counts, not empty lists
    }
    const running = () => sortedCalls(callRecordCounts(db, {}, T0, T0 + 12 * HOUR, 12 * HOUR)).find((r) => r.outcome === null)?.calls ?? 0
    expect(running()).toBeGreaterThan(0) // calls without an outcome are among them
    expectSame() // nothing derived yet
    // batches that end between calls and their outcomes: each batch settles the earlier calls its outcomes name
    for (const batch of [700, 333, 1_000]) {
      expect(await indexActivityServers(db, reasonVerdicts, batch)).toBe(true)
      expectSame()
    }
    while (await indexActivityServers(db, reasonVerdicts)) { /* catch up */ }
    expect(db.select().from(activityCallMinutes).all().length).toBeGreaterThan(100)
    expectSame()
    expect(await pruneActivity(db, T0 + 3 * HOUR + 17_000, 'test')).toBeGreaterThan(0)
    expectSame()
    expect(db.select().from(activityCallMinutes).all().filter((m) => m.calls <= 0)).toEqual([]) // minutes left empty are dropped
    while (await indexActivityServers(db, reasonVerdicts)) { /* catch up */ }
    expectSame()
  })

  it('the migration that adds them counts the calls indexed before it as the indexer does', async () => {
    const db = openDb(':memory:')
    fillCalls(db)
    // part of the log indexed: outcomes past the watermark are not counted yet, there or here
    expect(await indexActivityServers(db, reasonVerdicts, 1_500)).toBe(true)
    const minutes = () => db.select().from(activityCallMinutes).all().filter((m) => m.calls !== 0).sort((a, b) => a.minute - b.minute || a.outcome.localeCompare(b.outcome) || a.surface.localeCompare(b.surface) || a.actor.localeCompare(b.actor))
    const derived = minutes()
    expect(derived.length).toBeGreaterThan(50)
    db.$client.exec('delete from activity_call_minutes')
    for (const statement of readFileSync('db/migrations/0026_call_minutes.sql', 'utf8').split('--> statement-breakpoint').slice(1)) db.$client.exec(statement)
    expect(minutes()).toEqual(derived)
  })
})
