import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { servers, settings, toolApprovals, tools, type JsonObject, type ToolAnnotations } from '../schema'
import { classify, classifyServer } from '../../lib/preflight/classifier'
import type { ServerView } from '../../lib/preflight/state'

/**
 * The served listing: the tools an MCP session may call, i.e. the ones the shared classifier
 * says are callable, on servers in the session's scope. Withholding goes through `classify`,
 * the same function call-time dispatch uses, so the listing and dispatch cannot disagree.
 *
 * A tool whose server is not connected (initializing, unhealthy, waiting for login) is still
 * served. Connection state is transient: de-listing on every reconnect would churn client
 * tool lists, and it is exactly what the Shape B facet exists to report (server_initializing,
 * server_unhealthy, oauth_required can only reach tools/resolve because such tools are
 * listed). Policy gates (quarantine, disable, config denial, user block, approval) are not
 * transient, so those tools are withheld.
 */
export interface ServedTool {
  server: string
  name: string
  description: string | null
  inputSchema: JsonObject
  outputSchema: JsonObject | null
  annotations: ToolAnnotations | null
}

export interface ToolKey { server: string; name: string }

const p = (name: string) => sql.placeholder(name)

function prepare(db: Db) {
  const toolColumns = {
    server: tools.serverName, name: tools.name, description: tools.description,
    inputSchema: tools.inputSchema, outputSchema: tools.outputSchema, annotations: tools.annotations,
    status: toolApprovals.status, disabled: toolApprovals.disabled,
  }
  const serverColumns = {
    name: servers.name, enabled: servers.enabled, quarantined: servers.quarantined, trust: servers.trust,
    disabledTools: servers.disabledTools, enabledTools: servers.enabledTools,
  }
  const approvalJoin = and(eq(toolApprovals.serverName, tools.serverName), eq(toolApprovals.toolName, tools.name))
  return {
    quarantine: db.select({ q: settings.quarantineEnabled }).from(settings).where(eq(settings.id, 1)).prepare(),
    servers: db.select(serverColumns).from(servers).prepare(),
    server: db.select(serverColumns).from(servers).where(eq(servers.name, p('name'))).prepare(),
    // Keyset page over the primary key (server_name, name), restricted to candidate servers.
    page: db.select(toolColumns).from(tools).leftJoin(toolApprovals, approvalJoin)
      .where(sql`${tools.serverName} in (select value from json_each(${p('servers')}))
        and (${tools.serverName}, ${tools.name}) > (${p('afterServer')}, ${p('afterName')})`)
      .orderBy(asc(tools.serverName), asc(tools.name)).limit(p('limit')).prepare(),
    one: db.select(toolColumns).from(tools).leftJoin(toolApprovals, approvalJoin)
      .where(and(eq(tools.serverName, p('server')), eq(tools.name, p('name')))).prepare(),
  }
}

const cache = new WeakMap<Db, ReturnType<typeof prepare>>()
function statements(db: Db) {
  let s = cache.get(db)
  if (!s) cache.set(db, (s = prepare(db)))
  return s
}

type Row = ReturnType<ReturnType<typeof prepare>['one']['get']>

function servedOrUndefined(row: Row, server: ServerView | undefined, quarantineEnabled: boolean): ServedTool | undefined {
  if (!row) return undefined
  const approval = row.status ? { status: row.status, disabled: row.disabled ?? false } : null
  if (classify(server, row.name, { approval }, quarantineEnabled) !== 'callable') return undefined
  return { server: row.server, name: row.name, description: row.description, inputSchema: row.inputSchema, outputSchema: row.outputSchema, annotations: row.annotations }
}

/** Servers in scope whose server-level gate is open: the only ones whose tools can be served. */
function candidateServers(db: Db, inScope: (server: string) => boolean): Map<string, ServerView> {
  const open = new Map<string, ServerView>()
  for (const s of statements(db).servers.all()) if (inScope(s.name) && classifyServer(s) === 'ok') open.set(s.name, s)
  return open
}

/**
 * One page of served tools after `after` (exclusive), in (server, name) order. Run it inside
 * the caller's read transaction so scope and listing come from one snapshot. Returns `more`
 * when at least one further served tool exists.
 */
export function listServedTools(db: Db, opts: { inScope: (server: string) => boolean; after?: ToolKey; limit: number }): { tools: ServedTool[]; more: boolean } {
  const st = statements(db)
  const quarantineEnabled = st.quarantine.get()?.q ?? true
  const open = candidateServers(db, opts.inScope)
  const served: ServedTool[] = []
  if (open.size === 0) return { tools: served, more: false }
  const serverList = JSON.stringify([...open.keys()])
  // Withheld tools are skipped in code (the classifier is the one judge), so read in chunks
  // until the page plus one look-ahead is full or the table is exhausted.
  const chunk = Math.max(opts.limit * 2, 200)
  let after = opts.after ?? { server: '', name: '' }
  for (;;) {
    const rows = st.page.all({ servers: serverList, afterServer: after.server, afterName: after.name, limit: chunk })
    for (const row of rows) {
      const tool = servedOrUndefined(row, open.get(row.server), quarantineEnabled)
      if (!tool) continue
      if (served.length === opts.limit) return { tools: served, more: true }
      served.push(tool)
    }
    if (rows.length < chunk) return { tools: served, more: false }
    const last = rows[rows.length - 1]
    after = { server: last.server, name: last.name }
  }
}

/** The served tool with this key, or undefined when it is not served to this scope. */
export function findServedTool(db: Db, inScope: (server: string) => boolean, key: ToolKey): ServedTool | undefined {
  const st = statements(db)
  if (!inScope(key.server)) return undefined
  return servedOrUndefined(st.one.get({ server: key.server, name: key.name }), st.server.get({ name: key.server }), st.quarantine.get()?.q ?? true)
}
