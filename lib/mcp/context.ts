import 'server-only'
import type { Db } from '@/db/client'
import { readSnapshot } from '@/db/queries/preflight-state'
import { serverNames } from '@/db/queries/servers'
import { mcpCaller, type HeaderReader } from '@/lib/auth/caller'
import { describeError, notFoundError, ToolgateError, unavailableError } from '@/lib/core/errors'
import { scopeOf, type Caller } from '@/lib/preflight/evaluate'
import type { AskCaller } from '@/lib/upstream/calls'

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
  /** puts what an upstream asks (an elicitation, a sampling) to the client over this exchange's SSE stream (2025-11-25, a request that streams) */
  ask?: AskCaller
  /** false when this exchange answers one JSON body (the client takes no event stream): nothing goes out before the result */
  streams?: boolean
}

/**
 * Whether a path profile is of use to this caller: it narrows the caller's scope to at least one
 * configured server. A profile that does not exist narrows it to none, so the answer is the same
 * for a profile that does not exist and one that leaves the caller nothing: which profiles exist
 * is not an agent's to learn.
 */
function usable(db: Db, caller: Caller, profile: string): boolean {
  return readSnapshot(db, (state) => {
    const inScope = scopeOf(state, caller, profile)
    return serverNames(db).some(inScope)
  })
}

/** Build the session, or throw: unauthorized (401), a path profile of no use to the caller (404), unreadable state (503). */
export function openContext(db: Db, headers: HeaderReader, remoteAddress: string | undefined, profile: string | undefined, requestId: string): McpContext {
  try {
    const caller = mcpCaller(db, headers, remoteAddress)
    if (profile !== undefined && !usable(db, caller, profile)) {
      throw notFoundError(`no profile "${profile}" is available to this caller: /mcp/p/<profile> must name a profile that reaches a server in its scope`)
    }
    return { db, caller, profile, requestId }
  } catch (e) {
    if (e instanceof ToolgateError) throw e
    throw unavailableError(`proxy state could not be read: ${describeError(e)}`)
  }
}
