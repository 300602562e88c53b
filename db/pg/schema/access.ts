import { pgTable, bigint, json, text } from 'drizzle-orm/pg-core'

// PostgreSQL twin of db/schema/access.ts (what each column means is written there); tests/postgres/schema-parity.test.ts keeps the two equal.
export const profiles = pgTable('profiles', {
  name: text('name').primaryKey(),
  servers: json('servers').$type<string[]>().notNull(),
})

export const agentTokens = pgTable('agent_tokens', {
  name: text('name').primaryKey(),
  id: text('id').notNull().unique(),
  tokenHash: text('token_hash').notNull().unique(),
  allowedServers: json('allowed_servers').$type<string[]>().notNull(),
  profilePin: text('profile_pin'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }),
  lastUsedAt: bigint('last_used_at', { mode: 'number' }),
})
