import { describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { recordAsk, UNATTRIBUTED_ASKS_PER_MINUTE } from '@/lib/activity/call-record'
import { commitPending } from '@/lib/activity/record'
import { openDb } from '@/lib/server/database'

describe('server.asked records', () => {
  it('a server asking with no call in flight is recorded up to a bound a minute; a question during a call always is (its agent\'s volume limit covers it)', async () => {
    const db = openDb(':memory:')
    const note = { ask: 'elicitation' as const, mode: 'form' as const, asked: false, outcome: 'declined' as const }
    for (let i = 0; i < UNATTRIBUTED_ASKS_PER_MINUTE + 20; i++) recordAsk(db, 'flood', note, undefined)
    for (let i = 0; i < 5; i++) recordAsk(db, 'flood', note, { requestId: `req_call_${i}`, actor: 'token:a', tier: 'agent', target: 'flood:tool' })
    // another server has its own bound
    recordAsk(db, 'calm', note, undefined)
    await commitPending(db)
    const records = listActivity(db, { type: 'server.asked', limit: 1000 })
    expect(records.filter((r) => r.server === 'flood' && r.actor === 'runtime')).toHaveLength(UNATTRIBUTED_ASKS_PER_MINUTE)
    expect(records.filter((r) => r.actor === 'token:a')).toHaveLength(5)
    expect(records.filter((r) => r.server === 'calm')).toHaveLength(1)
    db.$client.close()
  })
})
