import { describe, expect, it } from 'vitest'
import { ensureOperatorKey, rotateOperatorKey } from '../../lib/auth/operator-key'
import { issueSession, isValidSession, SESSION_TTL_MS } from '../../lib/auth/session'
import { freshDb } from '../helpers/db'

describe('operator session (stateless, signed with the operator key hash)', () => {
  const setup = () => {
    const { db } = freshDb()
    ensureOperatorKey(db, 'tg_op_session_unit_test_key')
    return db
  }

  it('accepts its own fresh value and nothing altered', () => {
    const db = setup()
    const { value } = issueSession(db, 1_000)
    expect(isValidSession(db, value, 2_000)).toBe(true)
    const [expiry, mac] = value.split('.')
    expect(isValidSession(db, `${Number(expiry) + 1}.${mac}`, 2_000)).toBe(false) // a longer life needs a new signature
    expect(isValidSession(db, `${expiry}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, 2_000)).toBe(false)
    for (const junk of [undefined, '', 'x', `${expiry}`, `${expiry}.`, `.${mac}`]) expect(isValidSession(db, junk, 2_000)).toBe(false)
  })

  it('expires', () => {
    const db = setup()
    const { value } = issueSession(db, 1_000)
    expect(isValidSession(db, value, 1_000 + SESSION_TTL_MS - 1)).toBe(true)
    expect(isValidSession(db, value, 1_000 + SESSION_TTL_MS)).toBe(false)
  })

  it('rotating the operator key signs everyone out', () => {
    const db = setup()
    const { value } = issueSession(db)
    rotateOperatorKey(db)
    expect(isValidSession(db, value)).toBe(false)
  })
})
