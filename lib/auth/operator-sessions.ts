import 'server-only'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { operatorSessions, type OperatorSession } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { appendActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import { describeError } from '@/lib/errors'
import { logLine } from '@/lib/log'
import { agentCaller } from './caller'
import { isOperatorKey } from './operator-key'
import { hashSecret, newSecret } from './secrets'
import { sessionByHash, unexpiredSessions } from '@/db/queries/auth'

/**
 * The dashboard's operator sessions. The cookie carries a random value; the database keeps its
 * hash, when it was made, when it was last used and when it must end. A session ends at sign-out
 * (its row is deleted, so the same cookie is refused everywhere at once), after SESSION_IDLE_MS
 * without use, after SESSION_TTL_MS in any case, and when the operator key is rotated.
 */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000
export const SESSION_IDLE_MS = 60 * 60 * 1000
/** Last use is written at most this often: a page view must not be a write. */
const TOUCH_EVERY_MS = 60 * 1000

export interface SessionOrigin { userAgent?: string | null; address?: string | null }

/** A fresh session value; only call it after the operator key was verified. */
export async function issueSession(db: Db, origin: SessionOrigin = {}, now = Date.now()): Promise<{ value: string; expires: Date }> {
  const value = newSecret('tg_ss_')
  const expiresAt = now + SESSION_TTL_MS
  await writeTransaction(db, (tx) => {
    tx.insert(operatorSessions).values({
      idHash: hashSecret(value), createdAt: now, lastSeenAt: now, expiresAt,
      userAgent: origin.userAgent?.slice(0, 300) ?? null, address: origin.address?.slice(0, 100) ?? null,
    }).run()
  })
  return { value, expires: new Date(expiresAt) }
}

const live = (s: OperatorSession, now: number) => s.expiresAt > now && s.lastSeenAt + SESSION_IDLE_MS > now

/**
 * Whether `value` is a live session. A read; the last-use time is refreshed in the background
 * (a failed refresh only shortens the session, it never fails the request).
 */
export function isValidSession(db: Db, value: string | undefined, now = Date.now()): boolean {
  if (!value || !/^tg_ss_[A-Za-z0-9_-]{32}$/.test(value)) return false
  const idHash = hashSecret(value)
  const row = sessionByHash(db, idHash)
  if (!row || !live(row, now)) return false
  if (now - row.lastSeenAt > TOUCH_EVERY_MS) {
    writeTransaction(db, (tx) => tx.update(operatorSessions).set({ lastSeenAt: now }).where(eq(operatorSessions.idHash, idHash)).run(), 1_000)
      .catch((e: unknown) => console.error(logLine(`toolgate: could not refresh a session's last use: ${describeError(e)}`)))
  }
  return true
}

/** Live sessions, newest first: who is signed in, since when (never the values). */
export function listSessions(db: Db, now = Date.now()) {
  return unexpiredSessions(db, now)
    .filter((s) => live(s, now))
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((s) => ({ id: s.idHash.slice(0, 12), createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, expiresAt: Math.min(s.expiresAt, s.lastSeenAt + SESSION_IDLE_MS), userAgent: s.userAgent, address: s.address }))
}

/**
 * Sign in with the operator API key: a session on success (recorded as operator.signed_in),
 * or why not. Agent tokens never open the dashboard, and are told so explicitly.
 */
export async function signInOperator(db: Db, key: string, actor: string, origin: SessionOrigin = {}): Promise<{ session: { value: string; expires: Date } } | { refused: string }> {
  if (!isOperatorKey(db, key)) {
    return { refused: agentCaller(db, key) ? 'That is an agent token: agent tokens cannot open the dashboard. Use the operator API key.' : 'That is not the operator API key.' }
  }
  const now = Date.now()
  const session = await issueSession(db, origin, now)
  await appendActivity(db, { requestId: mintRequestId(now), type: 'operator.signed_in', actor, at: now, data: { surface: 'dashboard', until: session.expires.toISOString() } })
  return { session }
}

/** End the session server-side: from now on its cookie is refused everywhere. */
export async function signOutOperator(db: Db, value: string | undefined, actor: string): Promise<void> {
  await writeTransaction(db, (tx) => {
    if (value) tx.delete(operatorSessions).where(eq(operatorSessions.idHash, hashSecret(value))).run()
  })
  await appendActivity(db, { requestId: mintRequestId(), type: 'operator.signed_out', actor, data: { surface: 'dashboard' } })
}
