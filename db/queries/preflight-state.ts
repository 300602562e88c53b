import 'server-only'
import { and, eq, sql } from 'drizzle-orm'
import type { Transaction } from 'better-sqlite3'
import type { Db } from '@/db/client'
import { agentTokens, profiles, runtimeLease, settings, tools, upstreamSessions, type ServerConnection } from '@/db/schema'
import { servedWrites } from '@/db/write'
import { believedConnection, leaseColumns, type Lease } from './connections'
import { foreignCommits } from './settings'
import type { ApprovalView, ConnectionView, PreflightState, ServerView, ToolView } from '@/lib/core/state'

const p = (name: string) => sql.placeholder(name)

// The reads of a request's ids, as plain statements: on this path drizzle's row mapping cost more
// than the reads themselves. Keys come as one JSON array, so any number of ids is two statements;
// CROSS JOIN keeps the keys as the outer loop, each a primary-key lookup (as long as no statistics
// call these tables small: db/checkpointer.ts keeps none for them).
const SERVERS = `select s.name, s.enabled, s.quarantined, s.trust, s.disabled_tools, s.enabled_tools, s.transport is not null as has_transport, c.state, c.detail, c.action, c.runtime_instance
  from json_each(?) k cross join servers s on s.name = k.value left join server_connections c on c.server_name = s.name`
// An approved tool is judged by its approved definition (what agents are served: db/queries/served-tools.ts): its hints, its
// pin. While the tool has the approved pin the two definitions are one (the pin is a sha256 over all of it), so its hints are
// read from the approved copy only when the pins differ: the large copy is not read on every check.
const TOOLS = `select t.server_name, t.name,
    case when a.status = 'approved' and a.approved_hash is not t.hash then a.approved -> '$.annotations' else t.annotations end as annotations,
    case when a.status = 'approved' then a.approved_hash else t.hash end as hash, a.status, a.disabled
  from json_each(?) k cross join tools t on t.server_name = k.value ->> 0 and t.name = k.value ->> 1
  left join tool_approvals a on a.server_name = t.server_name and a.tool_name = t.name
  where t.gone_at is null`

interface ServerRow {
  name: string; enabled: number; quarantined: number; trust: ServerView['trust']; disabled_tools: string; enabled_tools: string | null; has_transport: number
  state: ConnectionRow['state'] | null; detail: string | null; action: ConnectionRow['action']; runtime_instance: string | null
}
interface ToolRow { server_name: string; name: string; annotations: string | null; hash: string | null; status: ApprovalView['status'] | null; disabled: number | null }
type ConnectionRow = Pick<ServerConnection, 'state' | 'detail' | 'action' | 'runtimeInstance'>

// a tool id near the one asked for: within 2 in length, or a prefix of it, or starting with it
const NEARBY = sql`(abs(length(${tools.serverName}) + 1 + length(${tools.name}) - ${p('len')}) <= 2
  or instr(${p('id')}, ${tools.serverName} || ':' || ${tools.name}) = 1
  or substr(${tools.serverName} || ':' || ${tools.name}, 1, ${p('len')}) = ${p('id')})`

/** Prepared once per connection: the evaluation's reads are few, narrow and indexed. */
function prepare(db: Db) {
  return {
    servers: db.$client.prepare<[string], ServerRow>(SERVERS),
    tools: db.$client.prepare<[string], ToolRow>(TOOLS),
    settings: db.select({ q: settings.quarantineEnabled }).from(settings).where(eq(settings.id, 1)).prepare(),
    lease: db.select(leaseColumns).from(runtimeLease).where(eq(runtimeLease.id, 1)).prepare(),
    profile: db.select({ servers: profiles.servers }).from(profiles).where(eq(profiles.name, p('name'))).prepare(),
    nearby: db.select({ server: tools.serverName, tool: tools.name }).from(tools).where(sql`${tools.goneAt} is null and ${NEARBY}`).prepare(),
    nearbyIn: db.select({ server: tools.serverName, tool: tools.name }).from(tools)
      .where(sql`${tools.serverName} in (select value from json_each(${p('servers')})) and ${tools.goneAt} is null and ${NEARBY}`).prepare(),
    tokenByHash: db.select().from(agentTokens).where(eq(agentTokens.tokenHash, p('hash'))).prepare(),
    session: db.select({ state: upstreamSessions.state, detail: upstreamSessions.detail, action: upstreamSessions.action, runtimeInstance: upstreamSessions.runtimeInstance })
      .from(upstreamSessions).where(and(eq(upstreamSessions.serverName, p('server')), eq(upstreamSessions.tokenId, p('token')))).prepare(),
  }
}

const cache = new WeakMap<Db, ReturnType<typeof prepare>>()
export function statements(db: Db) {
  let s = cache.get(db)
  if (!s) cache.set(db, (s = prepare(db)))
  return s
}

/** A PreflightState over the database, and how many rows it holds (see readSnapshot). */
export function createStateReader(db: Db): PreflightState & { size(): number } {
  const st = statements(db)
  // absent rows are cached too (undefined), so nothing is read twice
  const serverCache = new Map<string, { server: ServerView; connection: ConnectionRow | undefined } | undefined>()
  const toolCache = new Map<string, ToolView | undefined>()
  const sessionCache = new Map<string, ConnectionRow | undefined>()
  const profileCache = new Map<string, string[] | undefined>()
  const toolKey = (server: string, name: string) => `${server}\u0000${name}`
  let quarantine: boolean | undefined
  let lease: { value: Lease | undefined } | undefined

  const readServers = (names: readonly string[]) => {
    const wanted = [...new Set(names)].filter((n) => !serverCache.has(n))
    if (!wanted.length) return
    for (const n of wanted) serverCache.set(n, undefined)
    for (const r of st.servers.all(JSON.stringify(wanted))) {
      serverCache.set(r.name, {
        server: {
          name: r.name, enabled: r.enabled === 1, quarantined: r.quarantined === 1, trust: r.trust,
          disabledTools: JSON.parse(r.disabled_tools), enabledTools: r.enabled_tools === null ? null : JSON.parse(r.enabled_tools), hasTransport: r.has_transport === 1,
        },
        connection: r.state === null ? undefined : { state: r.state, detail: r.detail, action: r.action, runtimeInstance: r.runtime_instance },
      })
    }
  }
  const readTools = (ids: readonly { server: string; tool: string }[]) => {
    const wanted = ids.filter((i) => !toolCache.has(toolKey(i.server, i.tool)))
    if (!wanted.length) return
    for (const i of wanted) toolCache.set(toolKey(i.server, i.tool), undefined)
    for (const r of st.tools.all(JSON.stringify(wanted.map((i) => [i.server, i.tool])))) {
      toolCache.set(toolKey(r.server_name, r.name), {
        name: r.name, annotations: r.annotations === null ? null : JSON.parse(r.annotations), hash: r.hash,
        approval: r.status ? { status: r.status, disabled: r.disabled === 1 } : null,
      })
    }
  }

  return {
    quarantineEnabled: () => (quarantine ??= st.settings.get()?.q ?? true),
    prefetch(ids) {
      readServers(ids.map((i) => i.server))
      readTools(ids)
    },
    server(name) {
      readServers([name])
      return serverCache.get(name)?.server
    },
    connection(name, tokenId): ConnectionView | undefined {
      readServers([name])
      const row = serverCache.get(name)?.connection
      if (!row) return undefined
      // judged at this moment; a lease read that has run out is read again (its renewals are records, not counted as served writes)
      const now = Date.now()
      if (!lease || (lease.value && lease.value.expiresAt <= now)) lease = { value: st.lease.get() }
      const server = believedConnection(row, lease.value, now)
      if (server.state !== 'ready' || tokenId === undefined) return server
      // a ready server whose session for this token is down (only a down session has a row)
      const key = toolKey(name, tokenId)
      if (!sessionCache.has(key)) sessionCache.set(key, st.session.get({ server: name, token: tokenId }))
      const own = sessionCache.get(key)
      return own ? believedConnection(own, lease.value, now) : server
    },
    tool(server, name) {
      readTools([{ server, tool: name }])
      return toolCache.get(toolKey(server, name))
    },
    profileServers(name) {
      if (!profileCache.has(name)) profileCache.set(name, st.profile.get({ name })?.servers)
      return profileCache.get(name)
    },
    nearbyToolIds: (id, servers) => (servers ? st.nearbyIn.all({ id, len: id.length, servers: JSON.stringify(servers) }) : st.nearby.all({ id, len: id.length })),
    size: () => serverCache.size + toolCache.size + sessionCache.size + profileCache.size,
  }
}

/**
 * The pin of what is served of one tool now: its approved definition's once approved, else the
 * definition its server offers (the evaluator's own read). Null for a tool not known.
 */
export function servedPin(db: Db, server: string, tool: string): string | null {
  return statements(db).tools.get(JSON.stringify([[server, tool]]))?.hash ?? null
}

/** Rows a kept reader may hold before it is started afresh (unknown ids are kept too, as absent). */
const KEPT_ROWS = 10_000

/** The data_version read in this synchronous run of the event loop, if any (see changeStamp). */
let runVersion: { db: Db; version: number } | undefined

/**
 * Changes whenever anything served may have: a commit of another connection, or a change of this
 * one's that is not a record. What is read after it was taken stays right while it stands. Its
 * data_version (a read lock: its dear part) is read once per synchronous run of the event loop
 * unless `fresh`: a run begins after every request it serves was received, so a commit made
 * elsewhere before a request was sent is seen by that request. This connection's own changes
 * are counted at each call.
 */
function changeStamp(db: Db, fresh: boolean): string {
  if (fresh || runVersion?.db !== db) {
    if (!runVersion) queueMicrotask(() => { runVersion = undefined })
    runVersion = { db, version: foreignCommits(db) }
  }
  return `${runVersion.version}:${servedWrites(db)}`
}

/** Per connection: what keptRead read at one change stamp, by key. */
const keptReads = new WeakMap<Db, { stamp: string; values: Map<string, unknown> }>()

/**
 * `read()` kept under `key` while nothing served can have changed (the change stamp stands),
 * read afresh inside a transaction: a request's token lookup and rate limits, a call's server
 * configuration, each sharing its run's data_version with the others and the gate's.
 */
export function keptRead<T>(db: Db, key: string, read: () => T): T {
  if (db.$client.inTransaction) return read()
  const stamp = changeStamp(db, false)
  let kept = keptReads.get(db)
  if (kept?.stamp !== stamp || kept.values.size > KEPT_ROWS) keptReads.set(db, (kept = { stamp, values: new Map() }))
  if (!kept.values.has(key)) kept.values.set(key, read())
  return kept.values.get(key) as T
}

/** Per connection: the rows read at one change stamp, kept while it stands. */
const kept = new WeakMap<Db, { stamp: string; state: ReturnType<typeof createStateReader> }>()
/** Per connection: `fn` in a deferred read transaction, over the reader kept at its stamp. */
const keptSnapshots = new WeakMap<Db, Transaction<(fn: (state: PreflightState) => unknown) => unknown>>()

function keptReader(db: Db): PreflightState {
  // taken inside the read transaction: the stamp of the instant every read in it sees (and what the run's later keptReads use)
  const stamp = changeStamp(db, true)
  let snapshot = kept.get(db)
  if (snapshot?.stamp !== stamp || snapshot.state.size() > KEPT_ROWS) kept.set(db, (snapshot = { stamp, state: createStateReader(db) }))
  return snapshot.state
}

/**
 * Run `fn` against one consistent snapshot: a deferred read transaction, so every id in a
 * request is judged against the same instant (contract §8.3). The rows read are kept while
 * nothing served can have changed (the change stamp stands), so a steady stream of calls reads
 * them once, and the first request after any change — an approval, a block, a revoked token,
 * another process's commit — reads again. Within a write transaction (its own uncommitted
 * changes are no snapshot to keep) `fn` reads afresh.
 */
export function readSnapshot<T>(db: Db, fn: (state: PreflightState) => T): T {
  if (db.$client.inTransaction) return db.$client.transaction(() => fn(createStateReader(db))).deferred()
  let snapshot = keptSnapshots.get(db)
  if (!snapshot) keptSnapshots.set(db, (snapshot = db.$client.transaction((f: (state: PreflightState) => unknown) => f(keptReader(db)))))
  return snapshot.deferred(fn) as T
}
