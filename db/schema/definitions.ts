import { sqliteTable, integer, text, primaryKey } from 'drizzle-orm/sqlite-core'
import { servers } from './servers'
import type { JsonObject } from './tools'
import { definitionKinds, type DefinitionKind } from '../../lib/core/definition'
import { approvalStatuses } from '../../lib/core/state'
export { definitionKinds, type DefinitionKind }

/**
 * One of a server's definitions: the one it offers now (`definition`, its pin `hash`) and, kept
 * apart, the approved one (`approved`), which is all agents are ever served of it. `key` names
 * it within its kind: a prompt's name, a resource's URI, a template's URI template ("" for the
 * instructions). `status` null: seen only by an inspection of a server never released (release
 * approves it as shown).
 */
export const serverDefinitions = sqliteTable('server_definitions', {
  serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
  kind: text('kind', { enum: definitionKinds }).notNull(),
  key: text('key').notNull(),
  // as the server gave it (its own names and URIs; agents are served them under toolgate's)
  definition: text('definition', { mode: 'json' }).$type<JsonObject>().notNull(),
  hash: text('hash').notNull(),
  status: text('status', { enum: approvalStatuses }),
  approved: text('approved', { mode: 'json' }).$type<JsonObject | null>(),
  approvedHash: text('approved_hash'),
  decidedBy: text('decided_by'),
  decidedAt: integer('decided_at'),
  firstSeen: integer('first_seen').notNull(),
  lastSeen: integer('last_seen').notNull(),
  // the server stopped offering it; kept for history
  goneAt: integer('gone_at'),
}, (t) => [primaryKey({ columns: [t.serverName, t.kind, t.key] })])

export type ServerDefinition = typeof serverDefinitions.$inferSelect
