import { sqliteTable, integer, text, primaryKey, foreignKey } from 'drizzle-orm/sqlite-core'
import { servers } from './servers'

export type JsonObject = Record<string, unknown>
export interface ToolAnnotations {
  readOnlyHint?: boolean
  destructiveHint?: boolean
  openWorldHint?: boolean
  idempotentHint?: boolean
  title?: string
  [key: string]: unknown
}

/** Every tool the proxy knows, served or withheld. A row here is what "exists" means. */
export const tools = sqliteTable(
  'tools',
  {
    serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    inputSchema: text('input_schema', { mode: 'json' }).$type<JsonObject>().notNull(),
    outputSchema: text('output_schema', { mode: 'json' }).$type<JsonObject | null>(),
    annotations: text('annotations', { mode: 'json' }).$type<ToolAnnotations | null>(),
    // "sha256/v1:<hex>" over name, description, input and output schema (contract §6)
    hash: text('hash'),
    firstSeen: integer('first_seen').notNull(),
    lastSeen: integer('last_seen').notNull(),
    // set when the upstream stopped listing the tool; kept for history and diffs
    goneAt: integer('gone_at'),
  },
  (t) => [primaryKey({ columns: [t.serverName, t.name] })],
)

export interface ApprovedDefinition {
  description?: string | null
  input_schema?: JsonObject
  output_schema?: JsonObject | null
}

/** Approval record. No row = implicitly approved. */
export const toolApprovals = sqliteTable(
  'tool_approvals',
  {
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    status: text('status', { enum: ['approved', 'pending', 'changed'] }).notNull(),
    // blocked by the user; applies even on trust=auto servers
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    // the approved definition, kept for the diff when status = changed
    previous: text('previous', { mode: 'json' }).$type<ApprovedDefinition | null>(),
    // pin of the approved definition: discovery compares the current hash with it
    approvedHash: text('approved_hash'),
    decidedBy: text('decided_by'),
    decidedAt: integer('decided_at'),
  },
  (t) => [
    primaryKey({ columns: [t.serverName, t.toolName] }),
    foreignKey({ columns: [t.serverName, t.toolName], foreignColumns: [tools.serverName, tools.name] }).onDelete('cascade'),
  ],
)

export type Tool = typeof tools.$inferSelect
export type ToolApproval = typeof toolApprovals.$inferSelect
