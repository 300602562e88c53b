import { createHmac, timingSafeEqual } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { settings } from '../../db/schema'
import { recordActivity } from '../activity/record'
import { mintRequestId } from '../activity/request-id'
import { agentCaller } from './caller'
import { isOperatorKey } from './operator-key'

/**
 * The dashboard's operator session: a stateless signed value `<expiry ms>.<hmac>`, where the
 * HMAC-SHA256 key is the stored operator key hash. No session table is needed, and rotating
 * the operator key invalidates every session at once (the signing key changed).
 */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000

function operatorKeyHash(db: Db): string | null {
  return db.select({ h: settings.operatorKeyHash }).from(settings).where(eq(settings.id, 1)).get()?.h ?? null
}

const sign = (keyHash: string, expiry: number) => createHmac('sha256', keyHash).update(String(expiry)).digest('base64url')

/** A fresh session value; only call it after the operator key was verified. */
export function issueSession(db: Db, now = Date.now()): { value: string; expires: Date } {
  const keyHash = operatorKeyHash(db)
  if (!keyHash) throw new Error('no operator key is configured, so no session can be issued')
  const expiry = now + SESSION_TTL_MS
  return { value: `${expiry}.${sign(keyHash, expiry)}`, expires: new Date(expiry) }
}

/** Whether `value` is an unexpired session signed with the current operator key. */
export function isValidSession(db: Db, value: string | undefined, now = Date.now()): boolean {
  const m = value ? /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value) : null
  if (!m) return false
  const expiry = Number(m[1])
  if (expiry <= now) return false
  const keyHash = operatorKeyHash(db)
  if (!keyHash) return false
  const expected = Buffer.from(sign(keyHash, expiry))
  const presented = Buffer.from(m[2])
  return expected.length === presented.length && timingSafeEqual(expected, presented)
}

/**
 * Sign in with the operator API key: a session on success (recorded as operator.signed_in),
 * or why not. Agent tokens never open the dashboard, and are told so explicitly.
 */
export function signInOperator(db: Db, key: string, actor: string): { session: { value: string; expires: Date } } | { refused: string } {
  if (!isOperatorKey(db, key)) {
    return { refused: agentCaller(db, key) ? 'That is an agent token: agent tokens cannot open the dashboard. Use the operator API key.' : 'That is not the operator API key.' }
  }
  const now = Date.now()
  const session = issueSession(db, now)
  recordActivity(db, { requestId: mintRequestId(now), type: 'operator.signed_in', actor, at: now, data: { surface: 'dashboard', until: session.expires.toISOString() } })
  return { session }
}

export function recordSignOut(db: Db, actor: string): void {
  recordActivity(db, { requestId: mintRequestId(), type: 'operator.signed_out', actor, data: { surface: 'dashboard' } })
}
