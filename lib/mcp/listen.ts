import 'server-only'
import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import { listenParamsSchema } from '@/lib/schemas/mcp'
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server'
import { callerNow } from '@/lib/auth/caller'
import { logError } from '@/lib/core/log'
import { describeError } from '@/lib/core/errors'
import { allTools } from '@/lib/catalog/listing'
import { listPrompts, listResources, listResourceTemplates, subscriptionTarget } from './resources'
import type { McpContext } from './context'
import type { Db } from '@/db/client'
import { foreignCommits } from '@/db/queries/settings'
import { servedWrites } from '@/db/write'
import { runningSupervisor } from '@/lib/upstream/supervisor'

/**
 * 2026-07-28 `subscriptions/listen`: the SDK serves the stream (acknowledgement, filter,
 * subscription ids, keep-alives, teardown); toolgate decides what each stream hears. A stream
 * is told a listing changed only when the listing served to its own caller changed — its
 * token's scope as it stands now, only approved, callable tools and approved prompts and
 * resources — so an agent hears nothing of servers outside its scope, nor of a tool that
 * arrived pending approval, and hears of an approval or a release as soon as it is served.
 *
 * What is served changes in many ways (an upstream's list_changed and re-discovery, an
 * operator's approval in another process, a token's scope edited, a server stopping), so the
 * listings are compared, once a second, with the last ones each stream was told about — read
 * again only when something they are made of can have changed since (changeStamp), and once per
 * caller scope (the same token and path profile), however many streams it has open. The
 * 2025-11-25 GET stream (lib/mcp/http.ts) hears the same way (watchListings).
 *
 * Resource subscriptions (the filter's resourceSubscriptions) pass a read's gates before the SDK
 * sees the request, so its acknowledgement names only the URIs that will be heard of; each is
 * subscribed on the upstream session the caller's reads go to (its own, per_token), and that
 * session's notifications/resources/updated for it reach this stream alone. (2025-11-25's
 * resources/subscribe passes the same gates: lib/mcp/subscriptions.ts.)
 */
const CHECK_EVERY_MS = 1_000

export type ListingKind = 'tools_list_changed' | 'prompts_list_changed' | 'resources_list_changed'
type Listings = Record<ListingKind, string>

/** The streams of one caller scope, and its listings as last read. */
interface Scope {
  key: string
  /** the session of the stream that opened it: listings read only its db, caller and profile */
  session: McpContext
  streams: Set<Stream>
  /** digests of the listings as read when changeStamp was `stamp` (dropped when the read fails) */
  read?: { stamp: string; listings: Promise<Listings> }
}

interface Stream {
  scope: Scope
  deliver: (kind: ListingKind) => void
  /** a digest of each listing as last told (undefined until first read) */
  seen?: Listings
}

/** The exchange a subscriptions/listen stream opens in (the SDK subscribes within it): its session, and the resources it subscribes to. */
const opening = new AsyncLocalStorage<{ session: McpContext; resources: string[] }>()
const scopes = new Map<string, Scope>()
let timer: NodeJS.Timeout | undefined
let checking = false

/**
 * A subscriptions/listen request with its resource subscriptions narrowed to those this session
 * may hear of (a read's gates); any other request as it is.
 */
export function gateListen(session: McpContext, body: unknown): unknown {
  const msg = body as { method?: unknown; params?: unknown } | null
  if (msg?.method !== 'subscriptions/listen') return body
  const params = listenParamsSchema.safeParse(msg.params)
  const uris = params.success ? params.data.notifications.resourceSubscriptions : undefined
  if (!params.success || !uris) return body // a malformed one is the SDK's to refuse
  const allowed = uris.filter((uri) => typeof subscriptionTarget(session, uri) === 'object')
  return { ...msg, params: { ...params.data, notifications: { ...params.data.notifications, resourceSubscriptions: allowed } } }
}

/** Answer one modern exchange (its body gated: gateListen) knowing its session, so a stream it opens hears what that session is served. */
export function listening<T>(session: McpContext, body: unknown, fn: () => T): T {
  const msg = body as { method?: unknown; params?: unknown } | null
  const params = msg?.method === 'subscriptions/listen' ? listenParamsSchema.safeParse(msg.params) : undefined
  return opening.run({ session, resources: (params?.success && params.data.notifications.resourceSubscriptions) || [] }, fn)
}

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex')

/** The session as it stands now: its token's current scope (none once revoked). */
const now = (session: McpContext): McpContext => ({ ...session, caller: callerNow(session.db, session.caller) })

/**
 * Changes whenever anything a listing is made of may have: a commit of this process that may
 * change what is served (servedWrites: approvals, discoveries, scopes, settings), any commit of
 * another process (data_version: the CLI, a state load), or a server connecting or dropping
 * (held in memory, so read as such).
 */
function changeStamp(db: Db): string {
  return `${foreignCommits(db)}:${servedWrites(db)}:${runningSupervisor()?.connectedServers().join('\u0000') ?? ''}`
}

/** The listings `session`'s caller is served now. */
async function readListings(session: McpContext): Promise<Listings> {
  const current = now(session)
  return {
    tools_list_changed: digest(allTools(current)),
    prompts_list_changed: digest(await listPrompts(current)),
    resources_list_changed: digest([await listResources(current), await listResourceTemplates(current)]),
  }
}

/** The scope's listings at this stamp: read once for all its streams, again only once the stamp moves. */
function listingsOf(scope: Scope): Promise<Listings> {
  const stamp = changeStamp(scope.session.db)
  if (scope.read?.stamp !== stamp) {
    const listings = readListings(scope.session)
    const read = { stamp, listings }
    scope.read = read
    // an unreadable state tells nothing this time; the next check reads again
    listings.catch(() => { if (scope.read === read) scope.read = undefined })
  }
  return scope.read!.listings
}

/** Tell `stream` of each listing that differs from what it was last told. */
function tell(stream: Stream, current: Listings): void {
  const before = stream.seen
  stream.seen = current
  if (!before || !stream.scope.streams.has(stream)) return
  for (const kind of Object.keys(current) as ListingKind[]) if (current[kind] !== before[kind]) stream.deliver(kind)
}

async function checkAll(): Promise<void> {
  if (checking) return
  checking = true
  try {
    for (const scope of scopes.values()) {
      try {
        const current = await listingsOf(scope)
        for (const stream of scope.streams) tell(stream, current)
      } catch (e) {
        logError(`toolgate: mcp: a listing-change stream's listings could not be read: ${describeError(e)}`)
      }
    }
  } finally {
    checking = false
  }
}

/**
 * Hear, until the returned stop, of each change to a listing `session`'s caller is served
 * (tools, prompts, resources and templates), as `deliver(kind)`: compared with what it is served
 * as it opens, so only later changes are told.
 */
export function watchListings(session: McpContext, deliver: (kind: ListingKind) => void): () => void {
  const key = JSON.stringify([session.caller, session.profile ?? null])
  let scope = scopes.get(key)
  if (!scope) scopes.set(key, (scope = { key, session, streams: new Set() }))
  const stream: Stream = { scope, deliver }
  scope.streams.add(stream)
  // what it is served as it opens is what later listings are compared with
  void listingsOf(scope).then((current) => { stream.seen ??= current }, () => undefined)
  if (!timer) {
    timer = setInterval(() => void checkAll(), CHECK_EVERY_MS)
    timer.unref()
  }
  return () => {
    const own = stream.scope
    own.streams.delete(stream)
    if (!own.streams.size && scopes.get(own.key) === own) scopes.delete(own.key)
    if (!scopes.size && timer) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

/**
 * Whether `session`'s caller may hear of an update of `uri` now: its token's scope as it stands,
 * under a read's gates (a scope narrowed since a subscription silences it). Not when the gates
 * cannot be read: that update is not told (the next one is checked again).
 */
export function mayHear(session: McpContext, uri: string): boolean {
  try {
    return typeof subscriptionTarget(now(session), uri) === 'object'
  } catch (e) {
    logError(`toolgate: mcp: an update of ${uri} could not be checked: ${describeError(e)}`)
    return false
  }
}

/**
 * Subscribe, for this stream, to each resource its (gated) request names; what one of their
 * sessions says of it goes to `deliver` under the URI the caller named, while the caller may
 * hear of it (mayHear). Resolves to the stops.
 */
async function watchResources(session: McpContext, uris: string[], deliver: (event: ServerEvent) => void): Promise<(() => void)[]> {
  const stops: (() => void)[] = []
  for (const uri of uris) {
    const target = subscriptionTarget(session, uri)
    if (typeof target !== 'object') continue
    try {
      stops.push(await target.conn.watchResource(target.uri, () => {
        if (mayHear(session, uri)) deliver({ kind: 'resource_updated', uri })
      }))
    } catch (e) {
      logError(`toolgate: mcp: could not subscribe to ${uri} upstream: ${describeError(e)}`)
    }
  }
  return stops
}

/**
 * The bus the SDK's listen streams subscribe to. Nothing is published to every stream at once:
 * each stream's own caller decides what it hears (above).
 */
export const listenBus: ServerEventBus = {
  publish() {
    throw new Error('toolgate tells each subscriptions/listen stream only of its own caller\'s listings: nothing is published to all')
  },
  subscribe(deliver) {
    const exchange = opening.getStore()
    if (!exchange) throw new Error('a subscriptions/listen stream opened outside a toolgate exchange')
    const { session } = exchange
    const stopListings = watchListings(session, (kind) => deliver({ kind }))
    const stops = watchResources(session, exchange.resources, deliver)
    return () => {
      stopListings()
      void stops.then((all) => { for (const stop of all) stop() })
    }
  },
}
