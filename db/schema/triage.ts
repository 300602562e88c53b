import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core'

/**
 * An Overview item an operator acknowledged (a deliberate block they know of): hidden while it
 * stays as it was when acknowledged (same fingerprint) and, when snoozed, until `until`.
 */
export const triageAcks = sqliteTable('triage_acks', {
  // which item: its kind, the agent token and the cause (lib/dashboard/overview.ts causeKey)
  key: text('key').primaryKey(),
  // what the item held when acknowledged (its ids): a changed item shows again
  fingerprint: text('fingerprint').notNull(),
  // epoch ms a snooze ends; null: acknowledged until the item changes
  until: integer('until'),
  actor: text('actor').notNull(),
  at: integer('at').notNull(),
})

export type TriageAck = typeof triageAcks.$inferSelect
