import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core'

/** One row (id = 1): proxy-wide switches and the operator key's hash. */
export const settings = sqliteTable('settings', {
  id: integer('id').primaryKey(),
  quarantineEnabled: integer('quarantine_enabled', { mode: 'boolean' }).notNull().default(true),
  // sha256 hex of the operator API key; the key itself is never stored.
  operatorKeyHash: text('operator_key_hash'),
})

export type Settings = typeof settings.$inferSelect
