import 'server-only'
import type { Db } from '@/db/client'
import { statements } from '@/db/queries/preflight-state'
import { readSettings } from '@/db/queries/settings'
import { tokenById } from '@/db/queries/access'
import type { Caller } from '@/lib/preflight/evaluate'
import { unauthorized } from '@/lib/errors'
import { isOperatorKey } from './operator-key'
import { hashSecret } from './secrets'

const ANONYMOUS = 'anonymous'

/** What credential parsing needs of a request's headers (web Headers, or a node adapter). */
export interface HeaderReader { get(name: string): string | null }

/** An agent token's caller identity; undefined when no such token exists. */
export function agentCaller(db: Db, token: string): Caller | undefined {
  const row = statements(db).tokenByHash.get({ hash: hashSecret(token) })
  return row && { tier: 'agent', name: `token:${row.name}`, id: row.id, allowedServers: row.allowedServers, profilePin: row.profilePin }
}

/**
 * An agent caller as it stands now, for a gate asked again later (a held call about to run):
 * its token's current scope, and none once the token is revoked (or, for an anonymous caller,
 * once anonymous access is turned off).
 */
export function callerNow(db: Db, caller: Caller): Caller {
  if (caller.tier !== 'agent') return caller
  const none: Caller = { ...caller, allowedServers: [], profilePin: null }
  if (caller.id === undefined) {
    const profile = readSettings(db).mcpAnonymousProfile
    return caller.name === ANONYMOUS && profile !== null ? { ...caller, allowedServers: ['*'], profilePin: profile } : none
  }
  // by its id: a token re-created under the same name is another caller
  const row = tokenById(db, caller.id)
  return row ? { ...caller, allowedServers: row.allowedServers, profilePin: row.profilePin } : none
}

/**
 * The key everything kept per caller is kept under (tasks, held calls, cancellations, log
 * levels, elicitations): the token's immutable id. An anonymous caller has none, so it shares
 * no state with any other caller — nor with itself across requests.
 */
export const callerKey = (caller: Caller): string | undefined => (caller.tier === 'agent' ? caller.id : undefined)

/** The token of an `Authorization: Bearer <token>` header; null when absent; a 401 when malformed. */
export function bearerToken(headers: HeaderReader): string | null {
  const auth = headers.get('authorization')
  if (auth === null) return null
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth)
  if (!m) throw unauthorized('Authorization must be "Bearer <agent token>"')
  return m[1]
}

function tokenCaller(db: Db, token: string): Caller {
  const caller = agentCaller(db, token)
  if (!caller) throw unauthorized('invalid agent token')
  return caller
}

/**
 * REST credentials: X-API-Key → operator tier; Authorization: Bearer → agent-token tier.
 * Anything else, or a credential that does not match, is a 401.
 */
export function callerFromHeaders(db: Db, headers: HeaderReader): Caller {
  const apiKey = headers.get('x-api-key')
  if (apiKey !== null) {
    if (isOperatorKey(db, apiKey)) return { tier: 'operator', name: 'operator' }
    throw unauthorized('invalid X-API-Key')
  }
  const token = bearerToken(headers)
  if (token !== null) return tokenCaller(db, token)
  throw unauthorized('missing credentials: send X-API-Key (operator) or Authorization: Bearer <agent token>')
}

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
