import 'server-only'
import type { Db } from '@/db/client'
import { statements } from '@/db/queries/preflight-state'
import { mcpCaller, type HeaderReader } from '@/lib/auth/caller'
import { describeError, notFoundError, ToolgateError, unavailableError } from '@/lib/errors'
import type { Caller } from '@/lib/preflight/evaluate'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { ElicitParams } from './elicitation'

/**
 * Everything one MCP exchange is judged under. The endpoint is stateless, so a "session"
 * lives for one HTTP request: its caller, its path profile, and the request id every check
 * in it records under.
 */
export interface McpContext {
  db: Db
  caller: Caller
  /** the /mcp/p/<profile> pin; narrows scope, never widens it */
  profile: string | undefined
  requestId: string
  /** false only for the dashboard's preview, which must answer exactly as /mcp but not record */
  record?: boolean
  /** aborted when the HTTP exchange ends early (the client went away) */
  closed?: AbortSignal
  /** asks the client over this exchange's SSE stream (2025-11-25 tools/call that streams) */
  ask?: (params: ElicitParams, ended: AbortSignal) => Promise<ElicitResult>
  /** false when this exchange answers one JSON body (the client takes no event stream): nothing goes out before the result */
  streams?: boolean
}

/** Build the session, or throw: unauthorized (401), unknown profile (404), unreadable state (503). */
export function openContext(db: Db, headers: HeaderReader, remoteAddress: string | undefined, profile: string | undefined, requestId: string): McpContext {
  try {
    const caller = mcpCaller(db, headers, remoteAddress)
    if (profile !== undefined && statements(db).profile.get({ name: profile }) === undefined) {
      throw notFoundError(`unknown profile "${profile}": /mcp/p/<profile> must name a configured profile`)
    }
    return { db, caller, profile, requestId }
  } catch (e) {
    if (e instanceof ToolgateError) throw e
    throw unavailableError(`proxy state could not be read: ${describeError(e)}`)
  }
}
