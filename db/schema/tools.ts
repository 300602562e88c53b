import { sqliteTable, integer, text, primaryKey, foreignKey, index } from 'drizzle-orm/sqlite-core'
import { servers } from './servers'

import { approvalStatuses, type ToolAnnotations } from '../../lib/core/state'
import type { ApprovedDefinition, JsonObject } from '../../lib/core/definition'
export type { ApprovedDefinition, JsonObject, ToolAnnotations }

/** Every tool the proxy knows, served or withheld. A row here is what "exists" means. */
export const tools = sqliteTable(
  'tools',
  {
    serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // every field the upstream gave, served as given
    title: text('title'),
    description: text('description'),
    inputSchema: text('input_schema', { mode: 'json' }).$type<JsonObject>().notNull(),
    outputSchema: text('output_schema', { mode: 'json' }).$type<JsonObject | null>(),
    annotations: text('annotations', { mode: 'json' }).$type<ToolAnnotations | null>(),
    execution: text('execution', { mode: 'json' }).$type<JsonObject | null>(),
    icons: text('icons', { mode: 'json' }).$type<unknown[] | null>(),
    meta: text('meta', { mode: 'json' }).$type<JsonObject | null>(),
    // "sha256/v3:<hex>" over everything served, _meta included (contract §6): the pin of this,
    // the latest discovered definition, which is served only once approved (tool_approvals.approved)
    hash: text('hash'),
    firstSeen: integer('first_seen').notNull(),
    lastSeen: integer('last_seen').notNull(),
    // set when the upstream stopped listing the tool; kept for history and diffs
    goneAt: integer('gone_at'),
  },
  (t) => [primaryKey({ columns: [t.serverName, t.name] })],
)

/** Approval record. No row = implicitly approved: the tools row is then the approved definition (only a state file, and an inspection of a server never released, leave a tool without one). */
export const toolApprovals = sqliteTable(
  'tool_approvals',
  {
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    status: text('status', { enum: approvalStatuses }).notNull(),
    // blocked by the user; applies even on trust=auto servers
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    // pin of the approved definition: discovery, inspection, release and state load compare with it
    approvedHash: text('approved_hash'),
    decidedBy: text('decided_by'),
    decidedAt: integer('decided_at'),
    // the approved definition, every served field: what agents are served (never the discovered
    // one in tools), and the diff's "before" once the upstream offers something else; null while
    // nothing is approved (pending). Last in the table: the evaluator's reads never step over it.
    approved: text('approved', { mode: 'json' }).$type<ApprovedDefinition | null>(),
  },
  (t) => [
    primaryKey({ columns: [t.serverName, t.toolName] }),
    foreignKey({ columns: [t.serverName, t.toolName], foreignColumns: [tools.serverName, tools.name] }).onDelete('cascade'),
  ],
)

export type Tool = typeof tools.$inferSelect
export type ToolApproval = typeof toolApprovals.$inferSelect

/**
 * A call held for an operator's approval: the exact call (server, tool, canonical arguments and
 * their hash), who asked, and the tool's pin then. An identical retry joins the same row;
 * different arguments are a new one. `result` keeps the one execution's answer for everyone
 * waiting on it (or, refused, the gate's verdict).
 */
export const callApprovals = sqliteTable('call_approvals', {
  id: text('id').primaryKey(),
  serverName: text('server_name').notNull(),
  toolName: text('tool_name').notNull(),
  arguments: text('arguments').notNull(), // canonical JSON
  argumentsHash: text('arguments_hash').notNull(),
  caller: text('caller').notNull(),
  // the caller's token id: an identical retry joins only the same token's call (null: anonymous, which joins nothing)
  callerId: text('caller_id'),
  requestId: text('request_id').notNull(),
  // refused: approved, but the gate refused it when the approval was about to run it
  status: text('status', { enum: ['pending', 'approved', 'denied', 'expired', 'running', 'done', 'refused'] }).notNull(),
  reason: text('reason'),
  decidedBy: text('decided_by'),
  decidedAt: integer('decided_at'),
  result: text('result', { mode: 'json' }).$type<JsonObject | null>(),
  // the pin of the tool as served when the call was requested, and the one its approver was shown:
  // the approval is for a call of that definition, and it runs only while the tool still has it
  pin: text('pin'),
  approvedPin: text('approved_pin'),
  // the /mcp/p/<profile> the call was made under, which the gate is asked again with
  profile: text('profile'),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
}, (t) => [
  index('call_approvals_status').on(t.status, t.createdAt),
  // the call an identical retry joins: the same token's (by id), same tool, same arguments
  index('call_approvals_identity').on(t.callerId, t.serverName, t.toolName, t.argumentsHash),
])

export type CallApproval = typeof callApprovals.$inferSelect
