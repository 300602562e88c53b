import { describe, expect, it } from 'vitest'
import { ensureOperatorKey, rotateOperatorKey } from '@/lib/auth/operator-key'
import { issueSession, isValidSession, listSessions, SESSION_IDLE_MS, SESSION_TTL_MS, signOutOperator } from '@/lib/auth/operator-sessions'
import { operatorSessions } from '@/db/schema'
import { freshDb } from '@/tests/helpers/db'

describe('operator sessions (server-side, ended by sign-out, idleness, age or key rotation)', () => {
  const setup = async () => {
    const { db } = freshDb()
    await ensureOperatorKey(db, 'tg_op_session_unit_test_key')
    return db
  }

  it('accepts its own value and nothing altered; stores only a hash', async () => {
    const db = await setup()
    const { value } = await issueSession(db, { userAgent: 'test-agent' }, 1_000)
    expect(isValidSession(db, value, 2_000)).toBe(true)
    const altered = value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A')
    for (const junk of [undefined, '', 'x', altered, `${value}x`]) expect(isValidSession(db, junk, 2_000)).toBe(false)
    const rows = db.select().from(operatorSessions).all()
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(value)
  })

  it('sign-out ends it server-side: the same value is refused at once', async () => {
    const db = await setup()
    const { value } = await issueSession(db)
    expect(isValidSession(db, value)).toBe(true)
    await signOutOperator(db, value, 'operator')
    expect(isValidSession(db, value)).toBe(false)
  })

  it('expires after inactivity, and at the absolute limit however active', async () => {
    const db = await setup()
    const { value } = await issueSession(db, {}, 1_000)
    expect(isValidSession(db, value, 1_000 + 30_000)).toBe(true) // used within a minute: no refresh written
    expect(isValidSession(db, value, 1_000 + SESSION_IDLE_MS)).toBe(false)
    const active = await issueSession(db, {}, 1_000)
    // stay active: touch it every few minutes (the refresh is written in the background)
    for (let t = 1_000; t < 1_000 + SESSION_TTL_MS; t += 5 * 60_000) {
      expect(isValidSession(db, active.value, t)).toBe(true)
      await new Promise((r) => setImmediate(r))
    }
    expect(isValidSession(db, active.value, 1_000 + SESSION_TTL_MS)).toBe(false)
  })

  it('lists who is signed in since when, never the value', async () => {
    const db = await setup()
    const { value } = await issueSession(db, { userAgent: 'Chromium', address: '127.0.0.1' })
    const list = listSessions(db)
    expect(list).toEqual([expect.objectContaining({ userAgent: 'Chromium', address: '127.0.0.1', createdAt: expect.any(Number) })])
    expect(JSON.stringify(list)).not.toContain(value)
  })

  it('rotating the operator key signs everyone out', async () => {
    const db = await setup()
    const { value } = await issueSession(db)
    await rotateOperatorKey(db, { actor: 'test' })
    expect(isValidSession(db, value)).toBe(false)
    expect(listSessions(db)).toEqual([])
  })
})
