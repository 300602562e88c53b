import 'server-only'
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server'
import { tokenById } from '@/db/queries/access'
import { callerKey, tokenExpired } from '@/lib/auth/caller'
import { describeError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { jsonRpcError, jsonRpcResult, SERVER_ERROR, type JsonRpcErrorCode } from '@/lib/http/json-rpc'
import { resourceUriParamsSchema } from '@/lib/schemas/mcp'
import type { McpContext } from './context'
import { invalidParams, toProtocolError } from './errors'
import { mayHear } from './listen'
import { subscriptionTarget } from './resources'

/**
 * 2025-11-25 resources/subscribe and resources/unsubscribe. The endpoint keeps no session, so
 * the session a subscription belongs to is its caller scope — the agent token (by its id) and
 * the path profile — which is what the GET stream already belongs to (listingStream in
 * lib/mcp/http.ts): an update goes to every open GET stream of that scope, and to no other's.
 * A subscription passes a read's gates, as a 2026-07-28 one does (lib/mcp/listen.ts), and is
 * made on the upstream session the caller's reads go to; each update is told under the URI the
 * caller named, while the caller may still read it (checked at delivery).
 *
 * With no session to end, a scope's subscriptions end at resources/unsubscribe; when its token
 * is revoked or expires (noticed at the next update); and once it has had no GET stream open for
 * SUBSCRIPTIONS_IDLE_MS (after its last one closed, or from its first subscription when none has
 * opened yet): nobody is left to hear them.
 */
export const SUBSCRIPTIONS_IDLE_MS = 5 * 60_000
/** How many resources one scope may be subscribed to at once. */
export const MAX_SUBSCRIPTIONS = 100

interface Scope {
  key: string
  /** the token's id (callerKey) */
  caller: string
  /** whom updates are checked for: the db, the caller (its scope re-read at each update) and the path profile */
  session: McpContext
  /** by the URI the caller named: the upstream subscription, resolving to its stop once made */
  subscriptions: Map<string, Promise<() => void>>
  /** the scope's open GET streams */
  streams: Set<(uri: string) => void>
  /** its subscriptions' end, while it has some and no stream open */
  idle?: NodeJS.Timeout
}

const scopes = new Map<string, Scope>()
const keyOf = (caller: string, profile: string | undefined) => JSON.stringify([caller, profile ?? null])

function scopeFor(session: McpContext, caller: string): Scope {
  const key = keyOf(caller, session.profile)
  let scope = scopes.get(key)
  if (!scope) {
    const { db, caller: who, profile, requestId } = session
    scopes.set(key, (scope = { key, caller, session: { db, caller: who, profile, requestId }, subscriptions: new Map(), streams: new Set() }))
  }
  return scope
}

/** After any change: with a stream open nothing runs; with subscriptions only, their end is due; with neither the scope is gone. */
function settle(scope: Scope): void {
  if (scope.streams.size || !scope.subscriptions.size) {
    clearTimeout(scope.idle)
    scope.idle = undefined
  } else if (!scope.idle) {
    scope.idle = setTimeout(() => drop(scope), SUBSCRIPTIONS_IDLE_MS)
    scope.idle.unref()
  }
  if (!scope.streams.size && !scope.subscriptions.size && scopes.get(scope.key) === scope) scopes.delete(scope.key)
}

const end = (watching: Promise<() => void>) => void watching.then((stop) => stop(), () => undefined)

/** End every subscription of the scope. */
function drop(scope: Scope): void {
  for (const watching of scope.subscriptions.values()) end(watching)
  scope.subscriptions.clear()
  settle(scope)
}

/** An upstream's notifications/resources/updated for `uri`, as the scope subscribed to it. */
function updated(scope: Scope, uri: string): void {
  let stands: boolean
  try {
    const token = tokenById(scope.session.db, scope.caller)
    stands = token !== undefined && !tokenExpired(token.expiresAt, Date.now())
  } catch (e) {
    // the token could not be read: this update is not told (the next one is checked again)
    return logError(`toolgate: mcp: an update of ${uri} could not be checked: ${describeError(e)}`)
  }
  if (!stands) return drop(scope)
  if (mayHear(scope.session, uri)) for (const deliver of scope.streams) deliver(uri)
}

async function subscribe(session: McpContext, caller: string, uri: string): Promise<void> {
  const target = subscriptionTarget(session, uri)
  // refused by the gates: the answer a read gets, whatever lies behind it
  if (target === 'refused') throw new ResourceNotFoundError(uri)
  if (target === 'not_offered') throw invalidParams(`Invalid params: "${uri}" cannot be subscribed to: its server offers no resource subscriptions`)
  const scope = scopeFor(session, caller)
  let watching = scope.subscriptions.get(uri)
  if (!watching) {
    if (scope.subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw new ProtocolError(SERVER_ERROR, `Too many resource subscriptions: an agent token (on one path profile) may hold ${MAX_SUBSCRIPTIONS} at once; unsubscribe from one first`)
    }
    const made = target.conn.watchResource(target.uri, () => updated(scope, uri))
    scope.subscriptions.set(uri, (watching = made))
    settle(scope)
    made.catch(() => {
      if (scope.subscriptions.get(uri) !== made) return
      scope.subscriptions.delete(uri)
      settle(scope)
    })
  }
  await watching
}

function unsubscribe(session: McpContext, caller: string, uri: string): void {
  const scope = scopes.get(keyOf(caller, session.profile))
  const watching = scope?.subscriptions.get(uri)
  // not subscribed: answered {} all the same, as an MCP server does
  if (!scope || !watching) return
  scope.subscriptions.delete(uri)
  end(watching)
  settle(scope)
}

/** Answer a 2025-11-25 resources/subscribe or resources/unsubscribe: `{}`, or why not. */
export async function answerSubscription(session: McpContext, msg: { id?: unknown; method: string; params?: unknown }): Promise<Response> {
  try {
    const caller = callerKey(session.caller)
    if (caller === undefined) throw invalidParams(`${msg.method} needs an agent token: an anonymous caller is a new caller on every request, so no subscription can be kept for it`)
    const params = resourceUriParamsSchema.safeParse(msg.params)
    if (!params.success) throw invalidParams('Invalid params: uri must be a string (the resource\'s URI, as listed)')
    if (msg.method === 'resources/subscribe') await subscribe(session, caller, params.data.uri)
    else unsubscribe(session, caller, params.data.uri)
    return Response.json(jsonRpcResult(msg.id, {}))
  } catch (e) {
    const err = toProtocolError(e)
    if (err.code === ProtocolErrorCode.InternalError) logError(`toolgate: mcp request ${session.requestId} failed: ${err.message}`)
    return Response.json(jsonRpcError(msg.id, err.code as JsonRpcErrorCode, err.message, err.data))
  }
}

/**
 * Hear, until the returned stop, of every update of a resource `session`'s scope is subscribed
 * to, as `deliver(uri)`: a 2025-11-25 GET stream. An anonymous caller keeps no subscriptions.
 */
export function watchUpdates(session: McpContext, deliver: (uri: string) => void): () => void {
  const caller = callerKey(session.caller)
  if (caller === undefined) return () => undefined
  const scope = scopeFor(session, caller)
  scope.streams.add(deliver)
  settle(scope)
  return () => {
    scope.streams.delete(deliver)
    settle(scope)
  }
}
