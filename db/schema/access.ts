import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core'

/** A named set of servers; narrowing a scope, never widening it. */
export const profiles = sqliteTable('profiles', {
  name: text('name').primaryKey(),
  servers: text('servers', { mode: 'json' }).$type<string[]>().notNull(),
})

export const agentTokens = sqliteTable('agent_tokens', {
  name: text('name').primaryKey(),
  // who the token is, for good: everything kept per caller (tasks, held calls, sessions) is keyed
  // by it, never by the name, which a later token may take again once this one is revoked
  id: text('id').notNull().unique(),
  // sha256 hex of the secret; the secret itself is never stored
  tokenHash: text('token_hash').notNull().unique(),
  // ["*"] = all servers; [] = none
  allowedServers: text('allowed_servers', { mode: 'json' }).$type<string[]>().notNull(),
  // may name a profile that no longer exists: that means deny-all
  profilePin: text('profile_pin'),
  createdAt: integer('created_at').notNull(),
  // when the token stops working (ms); null = never
  expiresAt: integer('expires_at'),
  // when it last authenticated (ms), kept to within a minute (lib/auth/caller.ts noteTokenUse); null = never used
  lastUsedAt: integer('last_used_at'),
})

export type Profile = typeof profiles.$inferSelect
export type AgentToken = typeof agentTokens.$inferSelect
