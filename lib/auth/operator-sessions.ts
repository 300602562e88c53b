import 'server-only'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { operatorSessions, type OperatorSession } from '@/db/schema'
import { storageFault, writeTransaction } from '@/db/write'
import { appendActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import { describeError } from '@/lib/errors'
import { logLine } from '@/lib/log'
import { agentCaller } from './caller'
import { isOperatorKey } from './operator-key'
import { forgetFailedSignIns, noteFailedSignIn, signInBlockedUntil } from './sign-in-throttle'
import { hashSecret, newSecret, sameHash } from './secrets'
import { sessionByHash, unexpiredSessions } from '@/db/queries/auth'

/**
 * The dashboard's operator sessions. A session is two random values: the cookie (HttpOnly) and
 * the session key, which the browser keeps in localStorage and sends as a header. Both are
 * needed for every page, route and action: the browser sends the cookie to every port of the
 * host (cookies ignore ports), but only toolgate's own origin can read the key. The database
 * keeps their hashes, when the session was made, when it was last used and when it must end.
 * A session ends at sign-out (its row is deleted, so the same cookie is refused everywhere at
 * once), after SESSION_IDLE_MS without use, after SESSION_TTL_MS in any case, and when the
 * operator key is rotated.
 */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000
export const SESSION_IDLE_MS = 60 * 60 * 1000
/** Last use is written at most this often: a page view must not be a write. */
const TOUCH_EVERY_MS = 60 * 1000

export interface SessionOrigin { userAgent?: string | null; address?: string | null }

export interface IssuedSession { value: string; key: string; expires: Date }

/** What a request presents: the cookie's value and the session-key header's. */
export interface SessionCredentials { value: string | undefined; key: string | undefined }

/**
 * - `signed-in`: the cookie and its key, both valid.
 * - `key-missing`: a valid cookie and no key at all, as on a typed URL or a reload (a browser
 *   navigation cannot carry a header): only a data-free shell may be answered, whose script
 *   then asks again with the key.
 * - `signed-out`: anything else, including a valid cookie with a wrong key.
 */
export type SessionState = 'signed-in' | 'key-missing' | 'signed-out'

/** A fresh session; only call it after the operator key was verified. */
export async function issueSession(db: Db, origin: SessionOrigin = {}, now = Date.now()): Promise<IssuedSession> {
  const value = newSecret('tg_ss_')
  const key = newSecret('tg_sk_')
  const expiresAt = now + SESSION_TTL_MS
  await writeTransaction(db, (tx) => {
    tx.insert(operatorSessions).values({
      idHash: hashSecret(value), keyHash: hashSecret(key), createdAt: now, lastSeenAt: now, expiresAt,
      userAgent: origin.userAgent?.slice(0, 300) ?? null, address: origin.address?.slice(0, 100) ?? null,
    }).run()
  })
  return { value, key, expires: new Date(expiresAt) }
}

const live = (s: OperatorSession, now: number) => s.expiresAt > now && s.lastSeenAt + SESSION_IDLE_MS > now
const VALUE = /^tg_ss_[A-Za-z0-9_-]{32}$/
const KEY = /^tg_sk_[A-Za-z0-9_-]{32}$/

/**
 * How far `credentials` make a session. A read; the last-use time is refreshed in the
 * background, and only for a full session: a cookie alone never keeps one alive (a failed
 * refresh only shortens the session, it never fails the request).
 */
export function sessionState(db: Db, { value, key }: SessionCredentials, now = Date.now()): SessionState {
  if (!value || !VALUE.test(value)) return 'signed-out'
  const idHash = hashSecret(value)
  const row = sessionByHash(db, idHash)
  if (!row || !row.keyHash || !live(row, now)) return 'signed-out'
  if (key === undefined || key === '') return 'key-missing'
  if (!KEY.test(key) || !sameHash(hashSecret(key), row.keyHash)) return 'signed-out'
  if (now - row.lastSeenAt > TOUCH_EVERY_MS) {
    writeTransaction(db, (tx) => tx.update(operatorSessions).set({ lastSeenAt: now }).where(eq(operatorSessions.idHash, idHash)).run(), 1_000)
      .catch((e: unknown) => console.error(logLine(`toolgate: could not refresh a session's last use: ${describeError(e)}`)))
  }
  return 'signed-in'
}

/** Whether `credentials` are a live session: the cookie and its key. */
export const isValidSession = (db: Db, credentials: SessionCredentials, now = Date.now()) => sessionState(db, credentials, now) === 'signed-in'

/** Live sessions, newest first: who is signed in, since when (never the values). */
export function listSessions(db: Db, now = Date.now()) {
  return unexpiredSessions(db, now)
    .filter((s) => live(s, now))
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((s) => ({ id: s.idHash.slice(0, 12), createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, expiresAt: Math.min(s.expiresAt, s.lastSeenAt + SESSION_IDLE_MS), userAgent: s.userAgent, address: s.address }))
}

export type SignInResult = { session: IssuedSession } | { refused: string; fix: string }

const KEY_FIX = 'Use TOOLGATE_API_KEY, or the key toolgate printed once at first start.'

/** "try again in 4 min (at 22:41:07 UTC)" */
function retryAt(until: number, now: number): string {
  const s = Math.max(1, Math.ceil((until - now) / 1000))
  return `try again in ${s < 120 ? `${s} s` : `${Math.ceil(s / 60)} min`} (at ${new Date(until).toISOString().slice(11, 19)} UTC)`
}
const tooMany = (address: string, until: number, now: number) => `Too many failed sign-ins from ${address}: ${retryAt(until, now)}.`

/**
 * Sign in with the operator API key: a session on success (recorded as operator.signed_in),
 * or why not. Agent tokens never open the dashboard, and are told so explicitly. A refusal is
 * recorded (operator.sign_in_refused: the socket address, never the key tried) and counted
 * against the address: after a few, it waits (sign-in-throttle.ts) and no key is looked at.
 * A database that cannot be written (locked by another process, a full disk) is said so, with
 * what to do — it is not a crash.
 */
export async function signInOperator(db: Db, key: string, actor: string, origin: SessionOrigin = {}, now = Date.now()): Promise<SignInResult> {
  const address = origin.address || 'an unknown address'
  const blocked = signInBlockedUntil(address, now)
  if (blocked !== null) return { refused: tooMany(address, blocked, now), fix: 'Wait until then, then sign in with the operator API key.' }
  try {
    if (!isOperatorKey(db, key)) {
      const agent = agentCaller(db, key) !== undefined
      const until = noteFailedSignIn(address, now)
      await appendActivity(db, {
        requestId: mintRequestId(now), type: 'operator.sign_in_refused', actor: 'anonymous', at: now,
        data: { surface: 'dashboard', address, reason: agent ? 'agent_token' : 'wrong_key', ...(until !== null ? { throttled_until: new Date(until).toISOString() } : {}) },
      })
      const why = agent ? 'That is an agent token: agent tokens cannot open the dashboard. Use the operator API key.' : 'That is not the operator API key.'
      return { refused: until === null ? why : `${why} ${tooMany(address, until, now)}`, fix: KEY_FIX }
    }
    forgetFailedSignIns(address)
    const session = await issueSession(db, origin, now)
    await appendActivity(db, { requestId: mintRequestId(now), type: 'operator.signed_in', actor, at: now, data: { surface: 'dashboard', until: session.expires.toISOString() } })
    return { session }
  } catch (e) {
    const fault = storageFault(e)
    if (fault === null) throw e
    return {
      refused: `Could not sign in: ${fault}.`,
      fix: 'Nothing was changed. If another process holds the database (a toolgate command, a backup), wait for it and try again; if the disk is full, free space, then try again.',
    }
  }
}

/** End the session server-side: from now on its cookie is refused everywhere. */
export async function signOutOperator(db: Db, value: string | undefined, actor: string): Promise<void> {
  await writeTransaction(db, (tx) => {
    if (value) tx.delete(operatorSessions).where(eq(operatorSessions.idHash, hashSecret(value))).run()
  })
  await appendActivity(db, { requestId: mintRequestId(), type: 'operator.signed_out', actor, data: { surface: 'dashboard' } })
}
