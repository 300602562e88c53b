import { pgTable, bigint, json, text, primaryKey } from 'drizzle-orm/pg-core'
import { definitionKinds } from '../../../lib/core/definition'
import { approvalStatuses } from '../../../lib/core/state'
import type { JsonObject } from '../../schema/tools'
import { servers } from './servers'

// PostgreSQL twin of db/schema/definitions.ts (what each column means is written there); tests/postgres/schema-parity.test.ts keeps the two equal.
export const serverDefinitions = pgTable('server_definitions', {
  serverName: text('server_name').notNull().references(() => servers.name, { onDelete: 'cascade' }),
  kind: text('kind', { enum: definitionKinds }).notNull(),
  key: text('key').notNull(),
  definition: json('definition').$type<JsonObject>().notNull(),
  hash: text('hash').notNull(),
  status: text('status', { enum: approvalStatuses }),
  approved: json('approved').$type<JsonObject | null>(),
  approvedHash: text('approved_hash'),
  decidedBy: text('decided_by'),
  decidedAt: bigint('decided_at', { mode: 'number' }),
  firstSeen: bigint('first_seen', { mode: 'number' }).notNull(),
  lastSeen: bigint('last_seen', { mode: 'number' }).notNull(),
  goneAt: bigint('gone_at', { mode: 'number' }),
}, (t) => [primaryKey({ columns: [t.serverName, t.kind, t.key] })])
