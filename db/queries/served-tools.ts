import 'server-only'
import { and, asc, eq, getTableName, sql, type SQL, isNull } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { servers, settings, toolApprovals, tools } from '@/db/schema'
import { storedOf, type StoredDefinition } from '@/lib/core/definition'
import type { ApprovalView, ServerView } from '@/lib/core/state'

/**
 * The served listing: the tools an MCP session may call, on servers in the session's scope.
 * Which tools are callable is the caller's `callable` judgement (lib/mcp passes the shared
 * classifier, the same function call-time dispatch uses), so this read decides nothing itself.
 *
 * A tool whose server is not connected (initializing, unhealthy, waiting for login) is still
 * served. Connection state is transient: de-listing on every reconnect would churn client
 * tool lists, and it is exactly what the Shape B facet exists to report (server_initializing,
 * server_unhealthy, oauth_required can only reach tools/resolve because such tools are
 * listed). Policy gates (quarantine, disable, config denial, user block, approval) are not
 * transient, so those tools are withheld.
 *
 * What is served of a tool is its APPROVED definition (tool_approvals.approved), never the one
 * its server offers now (the tools row): the two differ exactly while the tool is changed, and a
 * changed tool is withheld, but should they ever differ otherwise, agents still get only what an
 * operator approved. A tool no approval binds serves what its server offers: one without a
 * record (a state file's, implicitly approved as it stands), and one callable only because the
 * approval gate is off for it (quarantine_enabled off, or a trust=auto server).
 */
export interface ServedTool extends StoredDefinition {
  server: string
}

export interface ToolKey { server: string; name: string }

const p = (name: string) => sql.placeholder(name)

function prepare(db: Db) {
  const toolColumns = {
    server: tools.serverName, name: tools.name, title: tools.title, description: tools.description,
    inputSchema: tools.inputSchema, outputSchema: tools.outputSchema, annotations: tools.annotations,
    execution: tools.execution, icons: tools.icons, meta: tools.meta,
    status: toolApprovals.status, disabled: toolApprovals.disabled, approved: toolApprovals.approved,
  }
  const approvalJoin = and(eq(toolApprovals.serverName, tools.serverName), eq(toolApprovals.toolName, tools.name))
  // Keyset order over the primary key; the row-value form lets SQLite seek instead of scan.
  const after = sql`(${tools.serverName}, ${tools.name}) > (${p('afterServer')}, ${p('afterName')})`
  // tools an upstream stopped listing are gone: never served (the evaluator skips them too)
  const page = (where: SQL | undefined) => db.select(toolColumns).from(tools).leftJoin(toolApprovals, approvalJoin)
    .where(and(isNull(tools.goneAt), where)).orderBy(asc(tools.serverName), asc(tools.name)).limit(p('limit')).prepare()
  return {
    quarantine: db.select({ q: settings.quarantineEnabled }).from(settings).where(eq(settings.id, 1)).prepare(),
    // Every request lists all server names to size its scope; a plucked raw statement skips
    // the per-row object mapping that made this the listing's most expensive read.
    serverNames: db.$client.prepare<[], string>(`select ${servers.name.name} from ${getTableName(servers)}`).pluck(),
    server: db.select({
      name: servers.name, enabled: servers.enabled, quarantined: servers.quarantined, trust: servers.trust,
      disabledTools: servers.disabledTools, enabledTools: servers.enabledTools,
      hasTransport: sql<boolean>`${servers.transport} is not null`.mapWith(Boolean),
    }).from(servers).where(eq(servers.name, p('name'))).prepare(),
    pageAll: page(after),
    pageOf: page(and(sql`${tools.serverName} in (select value from json_each(${p('servers')}))`, after)),
    one: db.select(toolColumns).from(tools).leftJoin(toolApprovals, approvalJoin)
      .where(and(eq(tools.serverName, p('server')), eq(tools.name, p('name')), isNull(tools.goneAt))).prepare(),
  }
}

const cache = new WeakMap<Db, ReturnType<typeof prepare>>()
function statements(db: Db) {
  let s = cache.get(db)
  if (!s) cache.set(db, (s = prepare(db)))
  return s
}

type Row = NonNullable<ReturnType<ReturnType<typeof prepare>['one']['get']>>

/** Whether a tool is callable: given its server's configuration, its approval and the global gate. */
export type Callable = (server: ServerView | undefined, tool: string, approval: ApprovalView | null, quarantineEnabled: boolean) => boolean

/** Keeps the callable rows, reading each server's configuration once. */
function judge(db: Db, callable: Callable) {
  const st = statements(db)
  const quarantineEnabled = st.quarantine.get()?.q ?? true
  const views = new Map<string, ServerView | undefined>()
  return (row: Row | undefined): ServedTool | undefined => {
    if (!row) return undefined
    if (!views.has(row.server)) views.set(row.server, st.server.get({ name: row.server }))
    const approval = row.status ? { status: row.status, disabled: row.disabled ?? false } : null
    if (!callable(views.get(row.server), row.name, approval, quarantineEnabled)) return undefined
    const { status, disabled: _d, approved, ...offered } = row
    if (status !== 'approved') return offered
    // approved with no approved definition kept: nothing to serve (fails closed)
    if (!approved) return undefined
    const { name: _n, ...served } = storedOf(row.name, approved)
    return { server: row.server, name: row.name, ...served }
  }
}

/**
 * One page of served tools after `after` (exclusive), in (server, name) order. Run it inside
 * the caller's read transaction so scope and listing come from one snapshot. Returns `more`
 * when at least one further served tool exists.
 */
export function listServedTools(db: Db, opts: { inScope: (server: string) => boolean; callable: Callable; after?: ToolKey; limit: number }): { tools: ServedTool[]; more: boolean } {
  const st = statements(db)
  const all = st.serverNames.all()
  const inScope = all.filter(opts.inScope)
  const served: ServedTool[] = []
  if (inScope.length === 0) return { tools: served, more: false }
  // An unrestricted scope needs no server filter; a narrow one must not scan other servers' tools.
  const read = inScope.length === all.length
    ? (args: { afterServer: string; afterName: string; limit: number }) => st.pageAll.all(args)
    : (args: { afterServer: string; afterName: string; limit: number }) => st.pageOf.all({ ...args, servers: JSON.stringify(inScope) })
  const servedOrUndefined = judge(db, opts.callable)
  // Withheld tools are skipped in code (the classifier is the one judge), so read the page
  // plus a look-ahead with some slack for withheld rows, and more only while they fall out.
  let chunk = Math.ceil(opts.limit * 1.25) + 1
  let after = opts.after ?? { server: '', name: '' }
  for (;;) {
    const rows = read({ afterServer: after.server, afterName: after.name, limit: chunk })
    for (const row of rows) {
      const tool = servedOrUndefined(row)
      if (!tool) continue
      if (served.length === opts.limit) return { tools: served, more: true }
      served.push(tool)
    }
    if (rows.length < chunk) return { tools: served, more: false }
    const last = rows[rows.length - 1]
    after = { server: last.server, name: last.name }
    chunk = Math.min(chunk * 2, 5000)
  }
}

/** The served tool with this key, or undefined when it is not served to this scope. */
export function findServedTool(db: Db, inScope: (server: string) => boolean, callable: Callable, key: ToolKey): ServedTool | undefined {
  if (!inScope(key.server)) return undefined
  return judge(db, callable)(statements(db).one.get({ server: key.server, name: key.name }))
}
