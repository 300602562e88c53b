import 'server-only'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { agentTokens, profiles, runtimeLease, serverConnections, servers, settings, toolApprovals, tools } from '@/db/schema'
import { believedConnection, type Lease } from './connections'
import type { ConnectionView, PreflightState, ServerView, ToolView } from '@/lib/preflight/state'

const p = (name: string) => sql.placeholder(name)

/** Prepared once per connection: the evaluation's reads are few, narrow and indexed. */
function prepare(db: Db) {
  return {
    settings: db.select({ q: settings.quarantineEnabled }).from(settings).where(eq(settings.id, 1)).prepare(),
    server: db.select({
      name: servers.name, enabled: servers.enabled, quarantined: servers.quarantined, trust: servers.trust,
      disabledTools: servers.disabledTools, enabledTools: servers.enabledTools,
    }).from(servers).where(eq(servers.name, p('name'))).prepare(),
    connection: db.select({ state: serverConnections.state, detail: serverConnections.detail, action: serverConnections.action, runtimeInstance: serverConnections.runtimeInstance })
      .from(serverConnections).where(eq(serverConnections.serverName, p('name'))).prepare(),
    lease: db.select({ instance: runtimeLease.instance, heartbeatAt: runtimeLease.heartbeatAt, expiresAt: runtimeLease.expiresAt })
      .from(runtimeLease).where(eq(runtimeLease.id, 1)).prepare(),
    tool: db.select({
      name: tools.name, annotations: tools.annotations, hash: tools.hash,
      status: toolApprovals.status, disabled: toolApprovals.disabled,
    }).from(tools)
      .leftJoin(toolApprovals, and(eq(toolApprovals.serverName, tools.serverName), eq(toolApprovals.toolName, tools.name)))
      .where(and(eq(tools.serverName, p('server')), eq(tools.name, p('tool')), isNull(tools.goneAt))).prepare(),
    profile: db.select({ servers: profiles.servers }).from(profiles).where(eq(profiles.name, p('name'))).prepare(),
    nearby: db.select({ server: tools.serverName, tool: tools.name }).from(tools).where(sql`${tools.goneAt} is null and (
      abs(length(${tools.serverName}) + 1 + length(${tools.name}) - ${p('len')}) <= 2
      or instr(${p('id')}, ${tools.serverName} || ':' || ${tools.name}) = 1
      or substr(${tools.serverName} || ':' || ${tools.name}, 1, ${p('len')}) = ${p('id')})`).prepare(),
    tokenByHash: db.select().from(agentTokens).where(eq(agentTokens.tokenHash, p('hash'))).prepare(),
  }
}

const cache = new WeakMap<Db, ReturnType<typeof prepare>>()
export function statements(db: Db) {
  let s = cache.get(db)
  if (!s) cache.set(db, (s = prepare(db)))
  return s
}

/** A PreflightState over the database; call it inside one read transaction (see readSnapshot). */
export function createStateReader(db: Db): PreflightState {
  const st = statements(db)
  const serverCache = new Map<string, ServerView | undefined>()
  const toolCache = new Map<string, ToolView | undefined>()
  let quarantine: boolean | undefined
  let lease: { value: Lease | undefined } | undefined
  const now = Date.now()
  return {
    quarantineEnabled: () => (quarantine ??= st.settings.get()?.q ?? true),
    server(name) {
      if (!serverCache.has(name)) serverCache.set(name, st.server.get({ name }))
      return serverCache.get(name)
    },
    connection(name): ConnectionView | undefined {
      const row = st.connection.get({ name })
      if (!row) return undefined
      lease ??= { value: st.lease.get() }
      return believedConnection(row, lease.value, now)
    },
    tool(server, name) {
      const key = `${server}\u0000${name}`
      if (!toolCache.has(key)) {
        const row = st.tool.get({ server, tool: name })
        toolCache.set(key, row && {
          name: row.name, annotations: row.annotations, hash: row.hash,
          approval: row.status ? { status: row.status, disabled: row.disabled ?? false } : null,
        })
      }
      return toolCache.get(key)
    },
    profileServers: (name) => st.profile.get({ name })?.servers,
    nearbyToolIds: (id) => st.nearby.all({ id, len: id.length }),
  }
}

/**
 * Run `fn` against one consistent snapshot: a deferred read transaction, so every id in a
 * request is judged against the same instant (contract §8.3).
 */
export function readSnapshot<T>(db: Db, fn: (state: PreflightState) => T): T {
  return db.$client.transaction(() => fn(createStateReader(db))).deferred()
}
