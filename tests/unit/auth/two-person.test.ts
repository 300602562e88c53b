import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { demoStateFile, freshDb, load } from '@/tests/helpers/db'
import { listActivity } from '@/db/queries/activity'
import { updateSettings } from '@/lib/admin/settings'
import { firstApprovals, isDestructive, twoPersonGate, type Approval } from '@/lib/approvals/two-person'

const alice = { actor: 'alice', operatorId: 'op_alice', auth: 'session' }
const bob = { actor: 'bob', operatorId: 'op_bob', auth: 'session' }
const carol = { actor: 'carol', operatorId: 'op_carol', auth: 'session' }

async function setup(rule: 'off' | 'destructive' | 'all') {
  const { db } = freshDb()
  await load(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')))
  await updateSettings(db, { two_person_rule: rule }, { actor: 'test' })
  return db
}
const tool = (subject = 'pin-1'): Approval => ({ kind: 'tool', target: 'notes:export_notes', subject, destructive: true })

describe('the two-person rule', () => {
  it('off: one approval runs at once', async () => {
    const db = await setup('off')
    expect(await twoPersonGate(db, tool(), alice)).toEqual({ proceed: true })
  })

  it('the first approval is kept and shown as 1 of 2; the same person twice is refused; a second person passes', async () => {
    const db = await setup('all')
    expect(await twoPersonGate(db, tool(), alice)).toEqual({ proceed: false, firstOfTwo: { by: 'alice', target: 'notes:export_notes' } })
    expect(firstApprovals(db, 'tool')).toEqual({ 'notes:export_notes': { by: 'alice', at: expect.any(String) } })
    expect(listActivity(db, { type: 'approval.first_of_two' })[0]).toMatchObject({ actor: 'alice', data: { target: 'notes:export_notes', after: { kind: 'tool', subject: 'pin-1' } } })
    await expect(twoPersonGate(db, tool(), alice)).rejects.toThrow(/you already approved notes:export_notes \(1 of 2\)/)
    expect(await twoPersonGate(db, tool(), bob)).toEqual({ proceed: true })
    expect(firstApprovals(db, 'tool')).toEqual({})
  })

  it('a second approval of another subject (the definition changed) starts over as a first', async () => {
    const db = await setup('all')
    await twoPersonGate(db, tool('pin-1'), alice)
    expect((await twoPersonGate(db, tool('pin-2'), bob)).proceed).toBe(false)
    expect(firstApprovals(db, 'tool')['notes:export_notes'].by).toBe('bob')
  })

  it('whoever added a server cannot be the second approver of its release', async () => {
    const db = await setup('all')
    const release: Approval = { kind: 'release', target: 'bank', subject: '[]', destructive: true, requester: 'carol' }
    await twoPersonGate(db, release, alice)
    await expect(twoPersonGate(db, release, carol)).rejects.toThrow(/you requested bank/)
    expect(await twoPersonGate(db, release, bob)).toEqual({ proceed: true })
  })

  it('destructive: only what may destroy needs two (MCP hints: read-only or destructiveHint false is not)', async () => {
    const db = await setup('destructive')
    expect(await twoPersonGate(db, { kind: 'definition', target: 'notes/instructions', subject: 'h', destructive: false }, alice)).toEqual({ proceed: true })
    expect((await twoPersonGate(db, tool(), alice)).proceed).toBe(false)
    expect(isDestructive(db, 'nosuch:tool')).toBe(true)
  })
})
