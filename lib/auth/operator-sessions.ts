import 'server-only'
import type { Db } from '@/db/client'
import type { Operator, OperatorSession } from '@/db/schema'
import { storageFault, writeTransaction } from '@/db/write'
import { appendActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import { recordChange } from '@/lib/activity/record-change'
import type { ActivityDataByType } from '@/lib/core/activity'
import { describeError, forbidden, notFoundError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { sessionByHash } from '@/db/queries/auth'
import { readSettings } from '@/db/queries/settings'
import { deleteSession, deleteSessionById, insertSession, operatorById, operatorByLogin, sessionsWithOperators, touchSession } from '@/db/queries/operators'
import { agentTokenOf } from './caller'
import { contextOf, ensureBootstrapAdmin, principalOf } from './accounts'
import { isOperatorKey } from './operator-key'
import { verifyPassword } from './passwords'
import { can, type AuthMethod, type Principal } from './roles'
import { forgetFailedSignIns, noteFailedSignIn, signInBlockedUntil } from './sign-in-throttle'
import { hashSecret, newSecret, sameHash } from './secrets'

/**
 * The dashboard's sessions, one person each. A session is two random values: the cookie
 * (HttpOnly) and the session key, which the browser keeps in localStorage and sends as a
 * header. Both are needed for every page, route and action: the browser sends the cookie to
 * every port of the host (cookies ignore ports), but only toolgate's own origin can read the
 * key. The database keeps their hashes, whose session it is, how they signed in (password,
 * SSO, or the break-glass key), when it was made, last used and must end. A session ends at
 * sign-out or when ended from the Operators page (its row is deleted, so the same cookie is
 * refused everywhere at once), after SESSION_IDLE_MS without use, after SESSION_TTL_MS in any
 * case, when its person is disabled, for a break-glass session when the key is rotated or
 * turned off, and for a password's session when local accounts are turned off.
 */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000
export const SESSION_IDLE_MS = 60 * 60 * 1000
/** Last use is written at most this often: a page view must not be a write. */
const TOUCH_EVERY_MS = 60 * 1000

export type SignInMethod = 'password' | 'break-glass' | 'oidc'

export interface SessionOrigin { userAgent?: string | null; address?: string | null }

export interface IssuedSession { value: string; key: string; expires: Date }

/** What a request presents: the cookie's value and the session-key header's. */
export interface SessionCredentials { value: string | undefined; key: string | undefined }

/**
 * - `signed-in`: the cookie and its key, both valid, of an enabled person.
 * - `key-missing`: a valid cookie and no key at all, as on a typed URL or a reload (a browser
 *   navigation cannot carry a header): only a data-free shell may be answered, whose script
 *   then asks again with the key.
 * - `signed-out`: anything else, including a valid cookie with a wrong key.
 */
export type SessionState = 'signed-in' | 'key-missing' | 'signed-out'

/** A fresh session for `operator`; only call it after their credential was verified. */
export async function issueSession(db: Db, operator: Pick<Operator, 'id'>, method: SignInMethod, origin: SessionOrigin = {}, now = Date.now()): Promise<IssuedSession> {
  const value = newSecret('tg_ss_')
  const key = newSecret('tg_sk_')
  const expiresAt = now + SESSION_TTL_MS
  await writeTransaction(db, (tx) => insertSession(tx, {
    idHash: hashSecret(value), keyHash: hashSecret(key), createdAt: now, lastSeenAt: now, expiresAt, operatorId: operator.id, auth: method,
    userAgent: origin.userAgent?.slice(0, 300) ?? null, address: origin.address?.slice(0, 100) ?? null,
  }))
  return { value, key, expires: new Date(expiresAt) }
}

/** How a session's person is on the record: `oidc` for a single sign-on, `break-glass` for the shared key, else `session`. */
const authOf = (method: string | null): AuthMethod => (method === 'break-glass' || method === 'oidc' ? method : 'session')

const live = (s: OperatorSession, now: number) => s.expiresAt > now && s.lastSeenAt + SESSION_IDLE_MS > now
const VALUE = /^tg_ss_[A-Za-z0-9_-]{32}$/
const KEY = /^tg_sk_[A-Za-z0-9_-]{32}$/

/** A session's person, as long as they are enabled and the way they signed in still works (the break-glass key, passwords). */
function sessionPrincipal(db: Db, row: OperatorSession): Principal | undefined {
  const o = row.operatorId === null ? undefined : operatorById(db, row.operatorId)
  if (!o || !o.enabled) return undefined
  const s = readSettings(db)
  if ((row.auth === 'break-glass' && !s.breakGlassKey) || (row.auth === 'password' && !s.localAccounts)) return undefined
  return principalOf(o, authOf(row.auth))
}

/**
 * How far `credentials` make a session, and whose it is. A read; the last-use time is
 * refreshed in the background, and only for a full session: a cookie alone never keeps one
 * alive (a failed refresh only shortens the session, it never fails the request).
 */
export function resolveSession(db: Db, { value, key }: SessionCredentials, now = Date.now()): { state: SessionState; principal?: Principal } {
  const out = { state: 'signed-out' as const }
  if (!value || !VALUE.test(value)) return out
  const idHash = hashSecret(value)
  const row = sessionByHash(db, idHash)
  if (!row || !row.keyHash || !live(row, now)) return out
  const principal = sessionPrincipal(db, row)
  if (!principal) return out
  if (key === undefined || key === '') return { state: 'key-missing' }
  if (!KEY.test(key) || !sameHash(hashSecret(key), row.keyHash)) return out
  if (now - row.lastSeenAt > TOUCH_EVERY_MS) {
    writeTransaction(db, (tx) => touchSession(tx, idHash, now), 1_000)
      .catch((e: unknown) => logError(`toolgate: could not refresh a session's last use: ${describeError(e)}`))
  }
  return { state: 'signed-in', principal }
}

export const sessionState = (db: Db, credentials: SessionCredentials, now = Date.now()): SessionState => resolveSession(db, credentials, now).state

/** Whether `credentials` are a live session: the cookie and its key. */
export const isValidSession = (db: Db, credentials: SessionCredentials, now = Date.now()) => sessionState(db, credentials, now) === 'signed-in'

/** Live sessions, newest first: whose, since when, how they signed in (never the values). One person's, or (`undefined`) everyone's. */
export function listSessions(db: Db, now = Date.now(), operatorId?: string) {
  return sessionsWithOperators(db, now, operatorId)
    .filter(({ session: s }) => live(s, now))
    .sort((a, b) => b.session.createdAt - a.session.createdAt)
    .map(({ session: s, username }) => ({
      id: s.idHash.slice(0, 16), username, method: s.auth, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt,
      expiresAt: Math.min(s.expiresAt, s.lastSeenAt + SESSION_IDLE_MS), userAgent: s.userAgent, address: s.address,
    }))
}

/** End one session by the id the Operators page shows: a person their own, an admin anyone's. Takes effect at once. */
export async function endSession(db: Db, by: Principal, id: string): Promise<string> {
  if (!/^[0-9a-f]{16}$/.test(id)) throw notFoundError('a session id is the 16 hex digits the Operators page shows')
  const owner = listSessions(db).find((s) => s.id === id)
  if (!owner) throw notFoundError(`no live session ${id}`)
  if (owner.username !== by.username && !can(by.role, 'admin')) throw forbidden(`session ${id} is ${owner.username}'s: only an admin ends another person's session`)
  await writeTransaction(db, (tx) => {
    deleteSessionById(tx, id, undefined)
    recordChange(tx, 'operator.session_ended', contextOf(by), { target: owner.username, before: { session: id, method: owner.method }, after: null })
  })
  return id
}

export type SignInResult = { session: IssuedSession; principal: Principal } | { refused: string; fix: string }

const KEY_FIX = 'Use TOOLGATE_API_KEY, or the key toolgate printed once at first start.'
const PASSWORD_FIX = 'Check the username (or e-mail) and password. A forgotten password: ask an admin for a new invitation.'

/** "try again in 4 min (at 22:41:07 UTC)" */
function retryAt(until: number, now: number): string {
  const s = Math.max(1, Math.ceil((until - now) / 1000))
  return `try again in ${s < 120 ? `${s} s` : `${Math.ceil(s / 60)} min`} (at ${new Date(until).toISOString().slice(11, 19)} UTC)`
}
const tooMany = (what: string, until: number, now: number) => `Too many failed sign-ins ${what}: ${retryAt(until, now)}.`

/** Storage faults (a locked database, a full disk) are said so, with what to do — not a crash. */
async function orStorageFault(run: () => Promise<SignInResult>): Promise<SignInResult> {
  try {
    return await run()
  } catch (e) {
    const fault = storageFault(e)
    if (fault === null) throw e
    return {
      refused: `Could not sign in: ${fault}.`,
      fix: 'Nothing was changed. If another process holds the database (a toolgate command, a backup), wait for it and try again; if the disk is full, free space, then try again.',
    }
  }
}

type Refused = ActivityDataByType['operator.sign_in_refused']

/** The record of a refused sign-in, under `anonymous`: nobody was signed in. */
export const refusedRecord = (db: Db, now: number, data: { address: string; reason: Refused['reason']; login?: string; until?: number | null; sso?: string; detail?: string }) =>
  appendActivity(db, {
    requestId: mintRequestId(now), type: 'operator.sign_in_refused', actor: 'anonymous', at: now,
    data: {
      surface: 'dashboard', address: data.address, reason: data.reason, ...(data.login ? { login: data.login } : {}), ...(data.until ? { throttled_until: new Date(data.until).toISOString() } : {}),
      ...(data.sso ? { sso: data.sso } : {}), ...(data.detail ? { detail: data.detail } : {}),
    },
  })

/** A session for `operator` and its record (operator.signed_in, under the person, with how). */
export async function openSession(db: Db, operator: Operator, method: SignInMethod, origin: SessionOrigin, now: number): Promise<{ session: IssuedSession; principal: Principal }> {
  const session = await issueSession(db, operator, method, origin, now)
  const principal = principalOf(operator, authOf(method))
  await appendActivity(db, { requestId: mintRequestId(now), type: 'operator.signed_in', ...contextOf(principal), at: now, data: { surface: 'dashboard', until: session.expires.toISOString(), method } })
  return { session, principal }
}

/**
 * Sign in with the break-glass key (the shared operator key): a session as the bootstrap
 * admin, on the record as `break-glass`; or why not. Agent tokens never open the dashboard,
 * and are told so. A refusal is recorded (operator.sign_in_refused: the socket address, never
 * the key tried) and counted against the address: after a few, it waits (sign-in-throttle.ts)
 * and no key is looked at. `settings.break_glass_key: false` turns the key off.
 */
export function signInBreakGlass(db: Db, key: string, origin: SessionOrigin = {}, now = Date.now()): Promise<SignInResult> {
  const address = origin.address || 'an unknown address'
  const blocked = signInBlockedUntil(`address:${address}`, now)
  if (blocked !== null) return Promise.resolve({ refused: tooMany(`from ${address}`, blocked, now), fix: 'Wait until then, then sign in again.' })
  return orStorageFault(async () => {
    if (!isOperatorKey(db, key)) {
      const agent = agentTokenOf(db, key) !== undefined
      const until = noteFailedSignIn(`address:${address}`, now)
      await refusedRecord(db, now, { address, reason: agent ? 'agent_token' : 'wrong_key', until })
      const why = agent ? 'That is an agent token: agent tokens cannot open the dashboard. Use the break-glass key, or sign in with your account.' : 'That is not the break-glass key.'
      return { refused: until === null ? why : `${why} ${tooMany(`from ${address}`, until, now)}`, fix: KEY_FIX }
    }
    if (!readSettings(db).breakGlassKey) {
      await refusedRecord(db, now, { address, reason: 'break_glass_off' })
      return { refused: 'The break-glass key is turned off (settings.break_glass_key: false).', fix: 'Sign in with your account. An admin can turn the key back on: toolgate settings set break_glass_key true.' }
    }
    forgetFailedSignIns(`address:${address}`)
    const admin = await writeTransaction(db, (tx) => ensureBootstrapAdmin(tx, now))
    return openSession(db, admin, 'break-glass', origin, now)
  })
}

/** Passwords turned off (settings.local_accounts: false): the refusal of a password sign-in and of an invitation, which sets one. */
export const LOCAL_ACCOUNTS_OFF = {
  refused: 'Passwords do not sign in to this toolgate: local accounts are turned off (settings.local_accounts: false).',
  fix: 'Sign in with single sign-on. Locked out? The break-glass key still signs in, and an admin can turn passwords back on: toolgate settings set local_accounts true.',
} as const

/**
 * Sign in with a local account's username (or e-mail) and password. Failures count against
 * both the address and the account (sign-in-throttle.ts): guessing one person's password from
 * many addresses, or many passwords from one address, each hit the wall after a few tries.
 * A refusal never says whether the account exists. With local accounts turned off, no
 * password is looked at.
 */
export function signInWithPassword(db: Db, login: string, password: string, origin: SessionOrigin = {}, now = Date.now()): Promise<SignInResult> {
  const address = origin.address || 'an unknown address'
  const account = `account:${login.trim().toLowerCase()}`
  const blocked = Math.max(signInBlockedUntil(`address:${address}`, now) ?? 0, signInBlockedUntil(account, now) ?? 0)
  return orStorageFault(async () => {
    if (blocked > 0) {
      // no password is looked at meanwhile
      await refusedRecord(db, now, { address, login, reason: 'throttled', until: blocked })
      return { refused: tooMany(`for ${login} or from ${address}`, blocked, now), fix: 'Wait until then, then sign in again.' }
    }
    if (!readSettings(db).localAccounts) {
      await refusedRecord(db, now, { address, login, reason: 'local_accounts_off' })
      return LOCAL_ACCOUNTS_OFF
    }
    const o = operatorByLogin(db, login.trim())
    const ok = await verifyPassword(password, o?.passwordHash ?? null)
    if (!o || !ok || !o.enabled) {
      const until = Math.max(noteFailedSignIn(`address:${address}`, now) ?? 0, noteFailedSignIn(account, now) ?? 0) || null
      await refusedRecord(db, now, { address, login, reason: o && ok ? 'disabled' : 'wrong_password', until })
      const why = o && ok ? 'This account is disabled.' : 'Wrong username or password.'
      return { refused: until === null ? why : `${why} ${tooMany(`for ${login} or from ${address}`, until, now)}`, fix: o && ok ? 'Ask an admin to enable your account.' : PASSWORD_FIX }
    }
    forgetFailedSignIns(`address:${address}`)
    forgetFailedSignIns(account)
    return openSession(db, o, 'password', origin, now)
  })
}

/** End the session server-side: from now on its cookie is refused everywhere. */
export async function signOutOperator(db: Db, value: string | undefined, by: Principal): Promise<void> {
  await writeTransaction(db, (tx) => {
    if (value) deleteSession(tx, hashSecret(value))
  })
  await appendActivity(db, { requestId: mintRequestId(), type: 'operator.signed_out', ...contextOf(by), data: { surface: 'dashboard' } })
}
