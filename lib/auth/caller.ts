import type { Db } from '../../db/client'
import { statements } from '../../db/queries/preflight-state'
import type { Caller } from '../preflight/evaluate'
import { unauthorized } from '../errors'
import { isOperatorKey } from './operator-key'
import { hashSecret } from './secrets'

/** An agent token's caller identity; undefined when no such token exists. */
export function agentCaller(db: Db, token: string): Caller | undefined {
  const row = statements(db).tokenByHash.get({ hash: hashSecret(token) })
  return row && { tier: 'agent', name: `token:${row.name}`, allowedServers: row.allowedServers, profilePin: row.profilePin }
}

/**
 * REST credentials: X-API-Key → operator tier; Authorization: Bearer → agent-token tier.
 * Anything else, or a credential that does not match, is a 401.
 */
export function callerFromHeaders(db: Db, headers: Headers): Caller {
  const apiKey = headers.get('x-api-key')
  if (apiKey !== null) {
    if (isOperatorKey(db, apiKey)) return { tier: 'operator', name: 'operator' }
    throw unauthorized('invalid X-API-Key')
  }
  const auth = headers.get('authorization')
  if (auth !== null) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth)
    if (!m) throw unauthorized('Authorization must be "Bearer <agent token>"')
    const caller = agentCaller(db, m[1])
    if (!caller) throw unauthorized('invalid agent token')
    return caller
  }
  throw unauthorized('missing credentials: send X-API-Key (operator) or Authorization: Bearer <agent token>')
}
