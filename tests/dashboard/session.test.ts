import { describe, expect, it } from 'vitest'
import { ensureOperatorKey, rotateOperatorKey } from '@/lib/auth/operator-key'
import { issueSession, isValidSession, listSessions, SESSION_IDLE_MS, SESSION_TTL_MS, sessionState, signOutOperator } from '@/lib/auth/operator-sessions'
import { operatorSessions } from '@/db/schema'
import { freshDb } from '@/tests/helpers/db'

describe('operator sessions (cookie and key; server-side, ended by sign-out, idleness, age or key rotation)', () => {
  const setup = async () => {
    const { db } = freshDb()
    await ensureOperatorKey(db, 'tg_op_session_unit_test_key')
    return db
  }

  const alter = (v: string) => v.slice(0, -1) + (v.endsWith('A') ? 'B' : 'A')

  it('accepts its own cookie and key and nothing altered; stores only hashes', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, { userAgent: 'test-agent' }, 1_000)
    expect(isValidSession(db, { value, key }, 2_000)).toBe(true)
    for (const junk of [undefined, '', 'x', alter(value), `${value}x`]) expect(isValidSession(db, { value: junk, key }, 2_000)).toBe(false)
    const rows = db.select().from(operatorSessions).all()
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(value)
    expect(JSON.stringify(rows)).not.toContain(key)
  })

  it('the cookie alone is never a session: without the key only a data-free shell may be answered; a wrong key is signed out', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, {}, 1_000)
    const other = await issueSession(db, {}, 1_000)
    expect(sessionState(db, { value, key }, 2_000)).toBe('signed-in')
    expect(sessionState(db, { value, key: undefined }, 2_000)).toBe('key-missing')
    expect(isValidSession(db, { value, key: undefined }, 2_000)).toBe(false)
    for (const wrong of [other.key, alter(key), `${key}x`, 'tg_sk_x', value]) expect(sessionState(db, { value, key: wrong }, 2_000), wrong).toBe('signed-out')
    // a key never stands in for its cookie
    expect(sessionState(db, { value: undefined, key }, 2_000)).toBe('signed-out')
  })

  it('a cookie alone does not keep a session alive', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, {}, 1_000)
    for (let t = 1_000; t < 1_000 + 2 * SESSION_IDLE_MS; t += 5 * 60_000) {
      sessionState(db, { value, key: undefined }, t)
      await new Promise((r) => setImmediate(r))
    }
    expect(db.select().from(operatorSessions).get()!.lastSeenAt).toBe(1_000)
    expect(isValidSession(db, { value, key }, 1_000 + SESSION_IDLE_MS)).toBe(false)
  })

  it('a session made before session keys existed (no key hash) is refused', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db)
    db.update(operatorSessions).set({ keyHash: null }).run()
    expect(sessionState(db, { value, key }, Date.now())).toBe('signed-out')
    expect(sessionState(db, { value, key: undefined }, Date.now())).toBe('signed-out')
  })

  it('sign-out ends it server-side: the same value is refused at once', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db)
    expect(isValidSession(db, { value, key })).toBe(true)
    await signOutOperator(db, value, 'operator')
    expect(sessionState(db, { value, key })).toBe('signed-out')
  })

  it('expires after inactivity, and at the absolute limit however active', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, {}, 1_000)
    expect(isValidSession(db, { value, key }, 1_000 + 30_000)).toBe(true) // used within a minute: no refresh written
    expect(isValidSession(db, { value, key }, 1_000 + SESSION_IDLE_MS)).toBe(false)
    const active = await issueSession(db, {}, 1_000)
    // stay active: touch it every few minutes (the refresh is written in the background)
    for (let t = 1_000; t < 1_000 + SESSION_TTL_MS; t += 5 * 60_000) {
      expect(isValidSession(db, active, t)).toBe(true)
      await new Promise((r) => setImmediate(r))
    }
    expect(isValidSession(db, active, 1_000 + SESSION_TTL_MS)).toBe(false)
  })

  it('lists who is signed in since when, never the value', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, { userAgent: 'Chromium', address: '127.0.0.1' })
    const list = listSessions(db)
    expect(list).toEqual([expect.objectContaining({ userAgent: 'Chromium', address: '127.0.0.1', createdAt: expect.any(Number) })])
    expect(JSON.stringify(list)).not.toContain(value)
    expect(JSON.stringify(list)).not.toContain(key)
  })

  it('rotating the operator key signs everyone out', async () => {
    const db = await setup()
    const session = await issueSession(db)
    await rotateOperatorKey(db, { actor: 'test' })
    expect(isValidSession(db, session)).toBe(false)
    expect(listSessions(db)).toEqual([])
  })
})
