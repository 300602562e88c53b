import { pgTable, bigint, boolean, json, text, primaryKey, foreignKey, index } from 'drizzle-orm/pg-core'
import type { ApprovedDefinition, JsonObject, ToolAnnotations } from '../../schema/tools'
import { servers } from './servers'
import { approvalStatuses } from '../../../lib/core/state'

// PostgreSQL twin of db/schema/tools.ts (what each column means is written there); tests/postgres/schema-parity.test.ts keeps the two equal.
export const tools = pgTable(
  'tools',
  {
    serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    title: text('title'),
    description: text('description'),
    inputSchema: json('input_schema').$type<JsonObject>().notNull(),
    outputSchema: json('output_schema').$type<JsonObject | null>(),
    annotations: json('annotations').$type<ToolAnnotations | null>(),
    execution: json('execution').$type<JsonObject | null>(),
    icons: json('icons').$type<unknown[] | null>(),
    meta: json('meta').$type<JsonObject | null>(),
    hash: text('hash'),
    firstSeen: bigint('first_seen', { mode: 'number' }).notNull(),
    lastSeen: bigint('last_seen', { mode: 'number' }).notNull(),
    goneAt: bigint('gone_at', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.serverName, t.name] })],
)

export const toolApprovals = pgTable(
  'tool_approvals',
  {
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    status: text('status', { enum: approvalStatuses }).notNull(),
    disabled: boolean('disabled').notNull().default(false),
    approvedHash: text('approved_hash'),
    decidedBy: text('decided_by'),
    decidedAt: bigint('decided_at', { mode: 'number' }),
    approved: json('approved').$type<ApprovedDefinition | null>(),
  },
  (t) => [
    primaryKey({ columns: [t.serverName, t.toolName] }),
    foreignKey({ columns: [t.serverName, t.toolName], foreignColumns: [tools.serverName, tools.name] }).onDelete('cascade'),
  ],
)

export const callApprovals = pgTable('call_approvals', {
  id: text('id').primaryKey(),
  serverName: text('server_name').notNull(),
  toolName: text('tool_name').notNull(),
  arguments: text('arguments').notNull(),
  argumentsHash: text('arguments_hash').notNull(),
  caller: text('caller').notNull(),
  callerId: text('caller_id'),
  requestId: text('request_id').notNull(),
  status: text('status', { enum: ['pending', 'approved', 'denied', 'expired', 'running', 'done', 'refused'] }).notNull(),
  reason: text('reason'),
  decidedBy: text('decided_by'),
  decidedAt: bigint('decided_at', { mode: 'number' }),
  result: json('result').$type<JsonObject | null>(),
  pin: text('pin'),
  approvedPin: text('approved_pin'),
  profile: text('profile'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
}, (t) => [
  index('call_approvals_status').on(t.status, t.createdAt),
  index('call_approvals_identity').on(t.callerId, t.serverName, t.toolName, t.argumentsHash),
])
