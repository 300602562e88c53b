import { describe, expect, it } from 'vitest'
import { ensureOperatorKey, rotateOperatorKey } from '@/lib/admin/operator-key'
import { issueSession, isValidSession, listSessions, SESSION_IDLE_MS, SESSION_TTL_MS, sessionState, signInBreakGlass, signOutOperator } from '@/lib/auth/operator-sessions'
import { person } from '@/tests/helpers/session'
import { MAX_FAILURES, WINDOW_MS } from '@/lib/auth/sign-in-throttle'
import { listActivity } from '@/db/queries/activity'
import { operatorSessions } from '@/db/schema'
import { freshDb } from '@/tests/helpers/db'

describe('operator sessions (cookie and key; server-side, ended by sign-out, idleness, age or key rotation)', () => {
  const setup = async () => {
    const { db } = freshDb()
    await ensureOperatorKey(db, 'tg_op_session_unit_test_key')
    const alice = await person(db, 'alice', 'approver')
    return Object.assign(db, { alice })
  }

  const alter = (v: string) => v.slice(0, -1) + (v.endsWith('A') ? 'B' : 'A')

  it('accepts its own cookie and key and nothing altered; stores only hashes', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, db.alice, 'password', { userAgent: 'test-agent' }, 1_000)
    expect(isValidSession(db, { value, key }, 2_000)).toBe(true)
    for (const junk of [undefined, '', 'x', alter(value), `${value}x`]) expect(isValidSession(db, { value: junk, key }, 2_000)).toBe(false)
    const rows = db.select().from(operatorSessions).all()
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(value)
    expect(JSON.stringify(rows)).not.toContain(key)
  })

  it('the cookie alone is never a session: without the key only a data-free shell may be answered; a wrong key is signed out', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, db.alice, 'password', {}, 1_000)
    const other = await issueSession(db, db.alice, 'password', {}, 1_000)
    expect(sessionState(db, { value, key }, 2_000)).toBe('signed-in')
    expect(sessionState(db, { value, key: undefined }, 2_000)).toBe('key-missing')
    expect(isValidSession(db, { value, key: undefined }, 2_000)).toBe(false)
    for (const wrong of [other.key, alter(key), `${key}x`, 'tg_sk_x', value]) expect(sessionState(db, { value, key: wrong }, 2_000), wrong).toBe('signed-out')
    // a key never stands in for its cookie
    expect(sessionState(db, { value: undefined, key }, 2_000)).toBe('signed-out')
  })

  it('a cookie alone does not keep a session alive', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, db.alice, 'password', {}, 1_000)
    for (let t = 1_000; t < 1_000 + 2 * SESSION_IDLE_MS; t += 5 * 60_000) {
      sessionState(db, { value, key: undefined }, t)
      await new Promise((r) => setImmediate(r))
    }
    expect(db.select().from(operatorSessions).get()!.lastSeenAt).toBe(1_000)
    expect(isValidSession(db, { value, key }, 1_000 + SESSION_IDLE_MS)).toBe(false)
  })

  it('a session made before session keys existed (no key hash) is refused', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, db.alice, 'password')
    db.update(operatorSessions).set({ keyHash: null }).run()
    expect(sessionState(db, { value, key }, Date.now())).toBe('signed-out')
    expect(sessionState(db, { value, key: undefined }, Date.now())).toBe('signed-out')
  })

  it('sign-out ends it server-side: the same value is refused at once', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, db.alice, 'password')
    expect(isValidSession(db, { value, key })).toBe(true)
    await signOutOperator(db, value, { operatorId: db.alice.id, username: 'alice', name: 'alice', role: 'approver', auth: 'session', actor: 'alice' })
    expect(sessionState(db, { value, key })).toBe('signed-out')
  })

  it('expires after inactivity, and at the absolute limit however active', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, db.alice, 'password', {}, 1_000)
    expect(isValidSession(db, { value, key }, 1_000 + 30_000)).toBe(true) // used within a minute: no refresh written
    expect(isValidSession(db, { value, key }, 1_000 + SESSION_IDLE_MS)).toBe(false)
    const active = await issueSession(db, db.alice, 'password', {}, 1_000)
    // stay active: touch it every few minutes (the refresh is written in the background)
    for (let t = 1_000; t < 1_000 + SESSION_TTL_MS; t += 5 * 60_000) {
      expect(isValidSession(db, active, t)).toBe(true)
      await new Promise((r) => setImmediate(r))
    }
    expect(isValidSession(db, active, 1_000 + SESSION_TTL_MS)).toBe(false)
  })

  it('lists who is signed in since when, never the value', async () => {
    const db = await setup()
    const { value, key } = await issueSession(db, db.alice, 'password', { userAgent: 'Chromium', address: '127.0.0.1' })
    const list = listSessions(db)
    expect(list).toEqual([expect.objectContaining({ userAgent: 'Chromium', address: '127.0.0.1', createdAt: expect.any(Number) })])
    expect(JSON.stringify(list)).not.toContain(value)
    expect(JSON.stringify(list)).not.toContain(key)
  })

  it('rotating the break-glass key signs out the sessions it opened; people\'s own sessions stay', async () => {
    const db = await setup()
    const own = await issueSession(db, db.alice, 'password')
    const glass = await signInBreakGlass(db, 'tg_op_session_unit_test_key', { address: '10.3.3.3' })
    if (!('session' in glass)) throw new Error(glass.refused)
    expect(isValidSession(db, glass.session)).toBe(true)
    await rotateOperatorKey(db, { actor: 'test' })
    expect(isValidSession(db, glass.session)).toBe(false)
    expect(isValidSession(db, own)).toBe(true)
    expect(listSessions(db).map((s) => s.username)).toEqual(['alice'])
  })

  it('a start with a changed TOOLGATE_API_KEY replaces the key like a rotation: its sessions end, and it is on the record; the same value again changes nothing', async () => {
    const db = await setup()
    const glass = await signInBreakGlass(db, 'tg_op_session_unit_test_key', { address: '10.3.3.4' })
    if (!('session' in glass)) throw new Error(glass.refused)
    const rotations = () => listActivity(db, { type: 'operator_key.rotated' })
    expect(rotations()).toHaveLength(0) // the first value set from the variable replaced no key
    await ensureOperatorKey(db, 'tg_op_session_unit_test_key_changed')
    expect(isValidSession(db, glass.session)).toBe(false)
    expect(rotations()).toMatchObject([{ actor: 'toolgate:TOOLGATE_API_KEY', data: { after: { sessions_signed_out: 1 } } }])
    expect(JSON.stringify(rotations())).not.toContain('tg_op_session_unit_test_key_changed')
    await ensureOperatorKey(db, 'tg_op_session_unit_test_key_changed')
    expect(rotations()).toHaveLength(1)
    expect(await signInBreakGlass(db, 'tg_op_session_unit_test_key_changed', { address: '10.3.3.4' })).toHaveProperty('session')
  })

  it('failed sign-ins are throttled per address for a window; another address is not; success forgets them', async () => {
    const db = await setup()
    const key = 'tg_op_session_unit_test_key'
    const t0 = 1_000_000
    for (let i = 0; i < MAX_FAILURES; i++) expect(await signInBreakGlass(db, 'tg_op_wrong_guess_0000000000', { address: '10.1.1.1' }, t0 + i)).toHaveProperty('refused')
    const waiting = await signInBreakGlass(db, key, { address: '10.1.1.1' }, t0 + 10)
    expect(waiting).toMatchObject({ refused: expect.stringMatching(/^Too many failed sign-ins from 10\.1\.1\.1: try again in 5 min/) })
    // another address is unaffected
    expect(await signInBreakGlass(db, key, { address: '10.1.1.2' }, t0 + 10)).toHaveProperty('session')
    // once the window has passed, the right key works, and its success forgets the failures
    expect(await signInBreakGlass(db, key, { address: '10.1.1.1' }, t0 + WINDOW_MS)).toHaveProperty('session')
    for (let i = 0; i < MAX_FAILURES - 1; i++) await signInBreakGlass(db, 'tg_op_wrong_guess_0000000000', { address: '10.1.1.1' }, t0 + WINDOW_MS + 1 + i)
    expect(await signInBreakGlass(db, key, { address: '10.1.1.1' }, t0 + WINDOW_MS + 100)).toHaveProperty('session')
    expect(JSON.stringify(listActivity(db, { type: 'operator.sign_in_refused' }))).not.toContain('tg_op_wrong_guess')
  })

  it('a full disk or a read-only database is a sign-in refusal that says what to do, not a crash', async () => {
    const db = await setup()
    const key = 'tg_op_session_unit_test_key'
    // sessions up to a page limit: the next one needs a page, and fails as on a full disk
    db.$client.pragma(`max_page_count = ${Number(db.$client.pragma('page_count', { simple: true })) + 4}`)
    const fill = db.$client.prepare("insert into operator_sessions (id_hash, key_hash, created_at, last_seen_at, expires_at) values (hex(randomblob(32)), hex(randomblob(32)), 0, 0, 0)")
    expect(() => { for (;;) fill.run() }).toThrow(/full/)
    const full = await signInBreakGlass(db, key, { address: '10.2.2.2' })
    expect(full).toMatchObject({ refused: 'Could not sign in: the disk that holds the state database is full.', fix: expect.stringContaining('free space') })
    db.$client.pragma('max_page_count = 1073741823')
    db.$client.pragma('query_only = on')
    expect(await signInBreakGlass(db, key, { address: '10.2.2.2' })).toMatchObject({ refused: 'Could not sign in: the state database is read-only.' })
    db.$client.pragma('query_only = off')
    expect(await signInBreakGlass(db, key, { address: '10.2.2.2' })).toHaveProperty('session')
  })
})
