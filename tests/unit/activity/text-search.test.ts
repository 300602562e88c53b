import { describe, expect, it } from 'vitest'
import { transactionOn } from '@/db/client'
import { containsPattern, listActivity } from '@/db/queries/activity'
import { openDb } from '@/lib/server/database'
import { insertActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'

const NOW = Date.parse('2026-12-03T10:00:00Z')
const callOf = (actor: string, target: string, requestId = mintRequestId(NOW)) => ({
  requestId, type: 'tool.call' as const, actor, server: target.split(':')[0], at: NOW,
  data: { target, arguments_hash: '0'.repeat(64), outcome: 'ok' as const, duration_ms: 1 },
})
// every record here is a call: its data has a target
const targetOf = (r: { data: unknown }) => (r.data as { target: string }).target
const found = (db: ReturnType<typeof openDb>, q: string, limit = 50) => listActivity(db, { q, limit }).map(targetOf)

describe('free-text search of the activity log (q)', () => {
  it('matches request id, actor, server, type and data text; % _ and \\ only literally; quotes as recorded', () => {
    const db = openDb(':memory:')
    transactionOn(db, (tx) => {
      insertActivity(tx, callOf('token:a_b', 'notes:export_notes', 'ci-run-77'))
      insertActivity(tx, callOf('token:axb', 'notes:exportxnotes'))
      insertActivity(tx, callOf('token:pct', 'billing:100%_off'))
      insertActivity(tx, callOf('token:plain', 'billing:1000'))
      insertActivity(tx, callOf('token:quote', 'weird:say"hi"\\now'))
    })
    expect(containsPattern('5%_\\')).toBe('%5\\%\\_\\\\%')
    // `_` and `%` are not wildcards: each finds only the records that hold it
    expect(found(db, 'a_b')).toEqual(['notes:export_notes'])
    expect(found(db, 'export_notes')).toEqual(['notes:export_notes'])
    expect(found(db, '100%')).toEqual(['billing:100%_off'])
    expect(found(db, '%')).toEqual(['billing:100%_off'])
    expect(found(db, '_off')).toEqual(['billing:100%_off'])
    // a quote and a backslash, as the JSON text escapes them
    expect(found(db, 'say"hi"\\n')).toEqual(['weird:say"hi"\\now'])
    // request id (a prefix of it), server, type; case-insensitive as LIKE is for ASCII
    expect(found(db, 'ci-run-7')).toEqual(['notes:export_notes'])
    expect(found(db, 'BILLING')).toEqual(['billing:1000', 'billing:100%_off'])
    expect(found(db, 'tool.call')).toHaveLength(5)
    expect(found(db, 'nowhere')).toEqual([])
  })

  // 100 000 real inserts: the limit catches a hang, not a pace (a loaded 2-core machine is slow)
  it('returns at most a page, newest first, and a miss over 100 000 records finds nothing', { timeout: 240_000 }, () => {
    const db = openDb(':memory:')
    transactionOn(db, (tx) => {
      for (let i = 0; i < 100_000; i++) insertActivity(tx, callOf(`token:t${i % 50}`, `notes:read_note_${i % 1000}`))
    })
    const page = listActivity(db, { q: 'read_note_7', limit: 51 })
    expect(page).toHaveLength(51)
    expect(page.map((r) => r.id)).toEqual([...page.map((r) => r.id)].sort((a, b) => b - a))
    expect(page.every((r) => targetOf(r).includes('read_note_7'))).toBe(true)
    expect(listActivity(db, { q: 'export_notes', limit: 51 })).toEqual([])
  })
})
