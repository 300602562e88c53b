import 'server-only'
import type { Db } from '@/db/client'
import { keptRead, statements } from '@/db/queries/preflight-state'
import { readSettings } from '@/db/queries/settings'
import { noteTokenUse, tokenById } from '@/db/queries/access'
import type { Caller } from '@/lib/preflight/evaluate'
import { describeError, forbidden, unauthorized } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { writeRecords } from '@/db/write'
import { notePersonalTokenUse, personalTokenByHash } from '@/db/queries/operators'
import { isOperatorKey, OPERATOR_KEY_PREFIX } from './operator-key'
import { principalOf } from './accounts'
import { can, isRole, refusal, type Permission, type Principal } from './roles'
import { hashSecret } from './secrets'

const ANONYMOUS = 'anonymous'

/** What credential parsing needs of a request's headers (web Headers, or a node adapter). */
export interface HeaderReader { get(name: string): string | null }

/**
 * The stored agent token a secret belongs to, expired or not; undefined when none. A lookup only:
 * it authenticates nothing. Kept while nothing served can have changed (keptRead), so revoking,
 * rotating or re-scoping a token applies to its next request; expiry is judged at each use.
 */
export function agentTokenOf(db: Db, token: string) {
  const hash = hashSecret(token)
  return keptRead(db, `token:${hash}`, () => statements(db).tokenByHash.get({ hash }))
}

/** Whether a token's expiry (ms; null = never) has come. */
export const tokenExpired = (expiresAt: number | null, now: number) => expiresAt !== null && expiresAt <= now

/** The 401 of an expired agent token: it names when, so its owner knows to renew it rather than hunt for a typo. */
export const expiredToken = (name: string, expiresAt: number) =>
  unauthorized(`agent token "${name}" expired at ${new Date(expiresAt).toISOString()}: an admin can give it a new expiry (dashboard → Tokens & profiles → Edit scope and expiry)`)

/**
 * How stale a token's last use may be before it is written again: a last-used time is for a
 * person deciding whether a token is still in use, which a minute does not change, and a write
 * per call (a lock and an fsync) would tax every request of a busy agent.
 */
export const LAST_USED_EVERY_MS = 60_000

/**
 * An agent token's caller identity; undefined when no such token exists; an expired one is a
 * 401 that says so (expiredToken). Its use is noted (lastUsedAt, at most once a minute) in the
 * background: a failed note never fails the request.
 */
export function agentCaller(db: Db, token: string, now = Date.now()): Caller | undefined {
  const row = agentTokenOf(db, token)
  if (!row) return undefined
  if (tokenExpired(row.expiresAt, now)) throw expiredToken(row.name, row.expiresAt!)
  if (row.lastUsedAt === null || row.lastUsedAt < now - LAST_USED_EVERY_MS) {
    row.lastUsedAt = now // on the kept row too: the note is a record, which does not make it read again
    writeRecords(db, (tx) => noteTokenUse(tx, row.id, now, LAST_USED_EVERY_MS), 1_000)
      .catch((e: unknown) => logError(`toolgate: could not note agent token "${row.name}"'s last use: ${describeError(e)}`))
  }
  return { tier: 'agent', name: `token:${row.name}`, id: row.id, allowedServers: row.allowedServers, profilePin: row.profilePin }
}

/**
 * An agent caller as it stands now, for a gate asked again later (a held call about to run):
 * its token's current scope, and none once the token is revoked or has expired (or, for an
 * anonymous caller, once anonymous access is turned off).
 */
export function callerNow(db: Db, caller: Caller, now = Date.now()): Caller {
  if (caller.tier !== 'agent') return caller
  const none: Caller = { ...caller, allowedServers: [], profilePin: null }
  if (caller.id === undefined) {
    const profile = readSettings(db).mcpAnonymousProfile
    return caller.name === ANONYMOUS && profile !== null ? { ...caller, allowedServers: ['*'], profilePin: profile } : none
  }
  // by its id: a token re-created under the same name is another caller
  const row = tokenById(db, caller.id)
  return row && !tokenExpired(row.expiresAt, now) ? { ...caller, allowedServers: row.allowedServers, profilePin: row.profilePin } : none
}

/**
 * The key everything kept per caller is kept under (tasks, held calls, cancellations, log
 * levels, elicitations): the token's immutable id. An anonymous caller has none, so it shares
 * no state with any other caller — nor with itself across requests.
 */
export const callerKey = (caller: Caller): string | undefined => (caller.tier === 'agent' ? caller.id : undefined)

/** The token of an `Authorization: Bearer <token>` header; null when absent; a 401 naming what Bearer takes (`takes`) when malformed. */
export function bearerToken(headers: HeaderReader, takes = 'agent token'): string | null {
  const auth = headers.get('authorization')
  if (auth === null) return null
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth)
  if (!m) throw unauthorized(`Authorization must be "Bearer <${takes}>"`)
  return m[1]
}

function tokenCaller(db: Db, token: string): Caller {
  const caller = agentCaller(db, token)
  if (!caller) throw unauthorized('invalid agent token')
  return caller
}

export const PERSONAL_TOKEN_PREFIX = 'tg_pt_'

/**
 * A personal access token's person, at the token's role. An expired token, a revoked one (its
 * row is gone) and one of a disabled person are refused alike. Each use is counted on the
 * token (uses, last use), in the background: a failed count never fails the request.
 */
export function personalTokenPrincipal(db: Db, token: string, now = Date.now()): Principal {
  const found = personalTokenByHash(db, hashSecret(token))
  if (!found || found.token.expiresAt <= now || !found.operator.enabled || !isRole(found.token.role)) throw unauthorized('invalid, expired or revoked personal access token')
  writeRecords(db, (tx) => notePersonalTokenUse(tx, found.token.id, now), 1_000)
    .catch((e: unknown) => logError(`toolgate: could not count a personal token's use: ${describeError(e)}`))
  return principalOf(found.operator, 'token', found.token.role)
}

/** The break-glass key on REST: the bootstrap admin's powers, on the record as `break-glass`; refused once turned off. */
function breakGlassPrincipal(db: Db): Principal {
  if (!readSettings(db).breakGlassKey) throw unauthorized('the break-glass key is turned off (settings.break_glass_key: false): use a personal access token')
  return { operatorId: '', username: 'break-glass', name: 'Break-glass key', role: 'admin', auth: 'break-glass', actor: 'break-glass' }
}

/**
 * REST credentials: X-API-Key with the break-glass key, or a personal access token (X-API-Key
 * or Authorization: Bearer tg_pt_…) → the operator tier, as that person, if their role may
 * `permission` (a 403 names the role needed); Authorization: Bearer <agent token> → the agent
 * tier. Anything else, or a credential that does not match, is a 401.
 */
export function restCredentials(db: Db, headers: HeaderReader, permission: Permission): { caller: Caller; principal?: Principal } {
  const apiKey = headers.get('x-api-key')
  const token = apiKey === null ? bearerToken(headers, 'agent token or personal access token') : null
  let principal: Principal | undefined
  if (apiKey !== null) {
    if (apiKey.startsWith(PERSONAL_TOKEN_PREFIX)) principal = personalTokenPrincipal(db, apiKey)
    else if (isOperatorKey(db, apiKey)) principal = breakGlassPrincipal(db)
    else throw unauthorized('invalid X-API-Key')
  } else if (token !== null && token.startsWith(PERSONAL_TOKEN_PREFIX)) {
    principal = personalTokenPrincipal(db, token)
  } else if (token !== null) {
    // the operator key in the wrong header: said only to whoever holds it (or its prefix)
    if (token.startsWith(OPERATOR_KEY_PREFIX) || isOperatorKey(db, token)) throw unauthorized('this is an operator key: send it as X-API-Key, not Authorization: Bearer (which takes agent tokens and personal access tokens)')
    return { caller: tokenCaller(db, token) }
  } else {
    throw unauthorized('missing credentials: send X-API-Key (break-glass key or personal access token), Authorization: Bearer <personal access token>, or Authorization: Bearer <agent token>')
  }
  if (!can(principal.role, permission)) throw forbidden(refusal(principal.role, permission))
  return { caller: { tier: 'operator', name: principal.actor }, principal }
}

/** The caller of a REST request (see restCredentials). */
export const callerFromHeaders = (db: Db, headers: HeaderReader, permission: Permission = 'view'): Caller => restCredentials(db, headers, permission).caller

/** Whether a socket address is this machine's loopback (IPv4, IPv6, or IPv4-mapped IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)
}

/**
 * The MCP surface answers agent tokens (contract §13); it is the agent tier whatever arrives
 * (an X-API-Key is ignored, so an operator key can never widen what it discloses). Without a
 * token: a 401, unless the operator named an anonymous profile — then a loopback caller gets
 * exactly that profile's scope (a pin on it: a deleted profile denies everything).
 */
export function mcpCaller(db: Db, headers: HeaderReader, remoteAddress: string | undefined): Caller {
  const token = bearerToken(headers)
  if (token !== null) return tokenCaller(db, token)
  const profile = readSettings(db).mcpAnonymousProfile
  if (profile !== null && isLoopback(remoteAddress)) return { tier: 'agent', name: ANONYMOUS, allowedServers: ['*'], profilePin: profile }
  throw unauthorized(profile === null
    ? 'missing credentials: /mcp needs Authorization: Bearer <agent token>'
    : 'missing credentials: only loopback callers may use /mcp without a token; send Authorization: Bearer <agent token>')
}
