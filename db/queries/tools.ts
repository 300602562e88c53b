import 'server-only'
import { and, asc, eq, gte, inArray, isNull, lt, ne, or, type SQL } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { servers, toolApprovals, tools } from '@/db/schema'
import type { ApprovedDefinition, StoredDefinition } from '@/lib/core/definition'
import type { ApprovalStatus, ApprovalView } from '@/lib/core/state'

/**
 * A tool the proxy knows: its latest discovered definition, pin and approval record (with the
 * approved definition, kept apart). Tools an upstream stopped listing (gone) do not exist for
 * anyone, so no read here returns them.
 */
export interface KnownTool extends StoredDefinition {
  server: string
  hash: string | null
  approval: ApprovalView | null
  /** the approved definition (what agents are served), null while pending or without a record */
  approved: ApprovedDefinition | null
  approvedHash: string | null
  /** who made the approval record's last decision, and when (null: none yet) */
  decidedBy: string | null
  decidedAt: number | null
}

const columns = {
  server: tools.serverName, name: tools.name, title: tools.title, description: tools.description, inputSchema: tools.inputSchema,
  outputSchema: tools.outputSchema, annotations: tools.annotations, execution: tools.execution, icons: tools.icons, meta: tools.meta, hash: tools.hash,
  status: toolApprovals.status, disabled: toolApprovals.disabled, approved: toolApprovals.approved, approvedHash: toolApprovals.approvedHash,
  decidedBy: toolApprovals.decidedBy, decidedAt: toolApprovals.decidedAt,
}
const approvalJoin = and(eq(toolApprovals.serverName, tools.serverName), eq(toolApprovals.toolName, tools.name))

const select = (db: DbLike, where: SQL | undefined) => db.select(columns).from(tools).leftJoin(toolApprovals, approvalJoin)
  .where(and(isNull(tools.goneAt), where)).orderBy(asc(tools.serverName), asc(tools.name))

function knownOf({ status, disabled, ...rest }: ReturnType<ReturnType<typeof select>['all']>[number]): KnownTool {
  return { ...rest, approval: status ? { status, disabled: disabled ?? false } : null }
}

/** Every known tool (of one server, or all), in (server, name) order. */
export function knownTools(db: DbLike, server?: string): KnownTool[] {
  return select(db, server === undefined ? undefined : eq(tools.serverName, server)).all().map(knownOf)
}

export function knownTool(db: DbLike, server: string, name: string): KnownTool | undefined {
  const row = select(db, and(eq(tools.serverName, server), eq(tools.name, name))).get()
  return row && knownOf(row)
}

/** A known tool by name with its approval alone: what judging and counting its status needs. */
export interface ToolApproval { server: string; name: string; approval: ApprovalView | null }

/** Every known tool's name and approval, in (server, name) order, reading no definition: for counts by status. */
export function toolApprovalList(db: DbLike): ToolApproval[] {
  return db.select({ server: tools.serverName, name: tools.name, status: toolApprovals.status, disabled: toolApprovals.disabled })
    .from(tools).leftJoin(toolApprovals, approvalJoin).where(isNull(tools.goneAt)).orderBy(asc(tools.serverName), asc(tools.name)).all()
    .map(({ status, disabled, ...rest }) => ({ ...rest, approval: status ? { status, disabled: disabled ?? false } : null }))
}

/** A known tool an operator's decision holds back: waiting for approval (new or changed), or blocked. */
export interface GatedTool { server: string; name: string; annotations: KnownTool['annotations']; approval: ApprovalView }

/**
 * The known tools whose approval record is pending, changed or blocked, in (server, name) order:
 * their names, annotations and approval alone. It walks the approval records in key order (their
 * status and block flag, never the approved definition kept last in the row) and reads a tool's
 * row only for a match: a page listing them does not read every tool's definition.
 */
export function gatedTools(db: DbLike): GatedTool[] {
  return db.select({ server: tools.serverName, name: tools.name, annotations: tools.annotations, status: toolApprovals.status, disabled: toolApprovals.disabled })
    .from(toolApprovals).innerJoin(tools, approvalJoin)
    .where(and(isNull(tools.goneAt), or(inArray(toolApprovals.status, ['pending', 'changed']), eq(toolApprovals.disabled, true))))
    .orderBy(asc(toolApprovals.serverName), asc(toolApprovals.toolName)).all()
    .map(({ status, disabled, ...rest }) => ({ ...rest, approval: { status, disabled } }))
}

/** Known `server:tool` ids (matching `where`), in (server, name) order: the ids alone, for a caller that judges them. */
const idsWhere = (db: DbLike, where: SQL | undefined) => db.select({ s: tools.serverName, t: tools.name }).from(tools)
  .where(and(isNull(tools.goneAt), where)).orderBy(asc(tools.serverName), asc(tools.name))

/** Every known `server:tool` id. */
export const knownToolIds = (db: DbLike): string[] => idsWhere(db, undefined).all().map((r) => `${r.s}:${r.t}`)

const MAX_CHAR = '\u{10FFFF}'

/**
 * Known `server:tool` ids starting with `prefix`, for autocomplete. Ranges over the tools
 * primary key (server_name, name), so it stays an index seek however many tools there are:
 * "no" → servers from "no"; "notes:re" → server "notes", names from "re".
 */
export function suggestToolIds(db: DbLike, prefix: string, limit: number): string[] {
  const q = prefix.trim()
  const at = q.indexOf(':')
  const where = at < 0
    ? and(gte(tools.serverName, q), lt(tools.serverName, q + MAX_CHAR))
    : and(eq(tools.serverName, q.slice(0, at)), gte(tools.name, q.slice(at + 1)), lt(tools.name, q.slice(at + 1) + MAX_CHAR))
  return idsWhere(db, where).limit(limit).all().map((r) => `${r.s}:${r.t}`)
}

/**
 * What discovery compares a new listing with, inside its write transaction: the server's row,
 * and every tool it ever listed — gone ones included, since discovery alone must notice a
 * tool that comes back — with their approval records.
 */
export function discoveryBasis(db: DbLike, serverName: string) {
  const server = db.select().from(servers).where(eq(servers.name, serverName)).get()
  if (!server) return undefined
  return {
    server,
    known: new Map(db.select().from(tools).where(eq(tools.serverName, serverName)).all().map((t) => [t.name, t])),
    approvals: new Map(db.select().from(toolApprovals).where(eq(toolApprovals.serverName, serverName)).all().map((a) => [a.toolName, a])),
  }
}

/** What a server's definitions could name elsewhere: the other servers and their known tools. */
export function reviewContext(db: DbLike, server: string) {
  const otherServers = db.select({ n: servers.name }).from(servers).where(ne(servers.name, server)).all().map((r) => r.n)
  const otherToolIds = db.select({ s: tools.serverName, t: tools.name }).from(tools).where(and(ne(tools.serverName, server), isNull(tools.goneAt))).all().map((r) => `${r.s}:${r.t}`)
  return { server, otherServers, otherToolIds }
}

/** reviewContext for many servers from one read of every server and tool (a long list's findings). */
export function reviewContexts(db: DbLike): (server: string) => ReturnType<typeof reviewContext> {
  const names = db.select({ n: servers.name }).from(servers).all().map((r) => r.n)
  const ids = db.select({ s: tools.serverName, t: tools.name }).from(tools).where(isNull(tools.goneAt)).all()
  return (server) => ({
    server,
    otherServers: names.filter((n) => n !== server),
    otherToolIds: ids.filter((r) => r.s !== server).map((r) => `${r.s}:${r.t}`),
  })
}

/** An operator's decision on a tool, as its approval record keeps it. */
export interface ApprovalDecision {
  status: ApprovalStatus
  /** left as it is when not given (a new record starts enabled): the runtime's decisions never touch it */
  disabled?: boolean
  approved: ApprovedDefinition | null
  approvedHash: string | null
  decidedBy: string
  decidedAt: number
}

/** Write a tool's approval record (made, or replaced), inside the caller's write transaction. */
export function saveApproval(tx: Tx, serverName: string, toolName: string, d: ApprovalDecision): void {
  tx.insert(toolApprovals).values({ serverName, toolName, ...d })
    .onConflictDoUpdate({ target: [toolApprovals.serverName, toolApprovals.toolName], set: d }).run()
}

/** A tool's columns as its upstream lists them, and their pin. */
export type ToolColumns = Omit<typeof tools.$inferInsert, 'serverName' | 'name' | 'firstSeen' | 'lastSeen' | 'goneAt'>

/** A tool listed for the first time, inside the caller's write transaction. */
export function insertTool(tx: Tx, serverName: string, name: string, columns: ToolColumns, now: number): void {
  tx.insert(tools).values({ serverName, name, ...columns, firstSeen: now, lastSeen: now }).run()
}

/** A known tool listed again: it takes what the server offers now, and is no longer gone. */
export function relistTool(tx: Tx, serverName: string, name: string, columns: ToolColumns, now: number): void {
  tx.update(tools).set({ ...columns, lastSeen: now, goneAt: null }).where(and(eq(tools.serverName, serverName), eq(tools.name, name))).run()
}

/** A tool its server stopped listing: marked gone (kept for history), unless it already is. */
export function markToolGone(tx: Tx, serverName: string, name: string, now: number): void {
  tx.update(tools).set({ goneAt: now }).where(and(eq(tools.serverName, serverName), eq(tools.name, name), isNull(tools.goneAt))).run()
}
