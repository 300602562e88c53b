import type { Db } from '../../db/client'
import { statements } from '../../db/queries/preflight-state'
import { agentCaller } from '../auth/caller'
import { describeError, notFoundError, ToolgateError, unauthorized, unavailableError } from '../errors'
import type { Caller } from '../preflight/evaluate'

/**
 * Everything one MCP exchange is judged under. The endpoint is stateless, so a "session"
 * lives for one HTTP request: its caller, its path profile, and the request id every check
 * in it records under.
 */
export interface McpSession {
  db: Db
  caller: Caller
  /** the /mcp/p/<profile> pin; narrows scope, never widens it */
  profile: string | undefined
  requestId: string
  /** false only for the dashboard's preview, which must answer exactly as /mcp but not record */
  record?: boolean
}

/** No credentials on /mcp: still the agent tier (contract §5), with unrestricted scope. */
export const anonymousCaller: Caller = { tier: 'agent', name: 'anonymous', allowedServers: ['*'], profilePin: null }

/**
 * The MCP surface is the agent-token tier whatever credentials arrive (seed invariant 4):
 * only `Authorization: Bearer` is consulted. An X-API-Key is ignored rather than honoured,
 * so an operator key can never widen what the in-band surface discloses.
 */
export function mcpCaller(db: Db, headers: Headers): Caller {
  const auth = headers.get('authorization')
  if (auth === null) return anonymousCaller
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth)
  if (!m) throw unauthorized('Authorization must be "Bearer <agent token>"')
  const caller = agentCaller(db, m[1])
  if (!caller) throw unauthorized('invalid agent token')
  return caller
}

/** Build the session, or throw: unauthorized (401), unknown profile (404), unreadable state (503). */
export function openSession(db: Db, req: Request, profile: string | undefined, requestId: string): McpSession {
  try {
    const caller = mcpCaller(db, req.headers)
    if (profile !== undefined && statements(db).profile.get({ name: profile }) === undefined) {
      throw notFoundError(`unknown profile "${profile}": /mcp/p/<profile> must name a configured profile`)
    }
    return { db, caller, profile, requestId }
  } catch (e) {
    if (e instanceof ToolgateError) throw e
    throw unavailableError(`proxy state could not be read: ${describeError(e)}`)
  }
}
