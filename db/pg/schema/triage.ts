import { pgTable, bigint, text } from 'drizzle-orm/pg-core'

// PostgreSQL twin of db/schema/triage.ts (what each column means is written there).
export const triageAcks = pgTable('triage_acks', {
  key: text('key').primaryKey(),
  fingerprint: text('fingerprint').notNull(),
  until: bigint('until', { mode: 'number' }),
  actor: text('actor').notNull(),
  at: bigint('at', { mode: 'number' }).notNull(),
})
