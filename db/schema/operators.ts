import { sqliteTable, integer, text, index, primaryKey } from 'drizzle-orm/sqlite-core'

/**
 * The people who use the dashboard, REST and remote CLI: one account each, with one role
 * (lib/auth/roles.ts). `username` is what the activity log names them by. A local account
 * signs in with a password (scrypt, lib/auth/passwords.ts: only the hash is kept); an SSO
 * account has no password. Disabling keeps the account (the log still names it) and ends its
 * sessions and tokens at once.
 */
export const operators = sqliteTable('operators', {
  id: text('id').primaryKey(), // op_<random>: never reused
  username: text('username').notNull().unique(),
  name: text('name').notNull(),
  email: text('email').unique(),
  role: text('role').notNull(), // viewer | auditor | operator | approver | admin
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
  passwordHash: text('password_hash'),
  source: text('source').notNull(), // bootstrap | local | oidc
  // the identity provider's `iss` + " " + `sub` once the person signed in with SSO: later sign-ins match it, not the e-mail
  oidcSubject: text('oidc_subject').unique(),
  createdAt: integer('created_at').notNull(),
})

/** An admin's one-time invitation: the link's secret, hashed; it works once, until it expires. */
export const operatorInvitations = sqliteTable('operator_invitations', {
  tokenHash: text('token_hash').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id, { onDelete: 'cascade' }),
  createdBy: text('created_by').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
})

/** Personal access tokens (tg_pt_…): a person's own credential for REST, at most their role. */
export const personalTokens = sqliteTable('personal_tokens', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  role: text('role').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  lastUsedAt: integer('last_used_at'),
  uses: integer('uses').notNull().default(0),
}, (t) => [index('personal_tokens_operator').on(t.operatorId)])

/**
 * Two-person rule: the first approval of something the rule covers, waiting for a second,
 * different approver. `subject` is what is approved exactly as shown (a pin, a set of pins).
 */
export const pendingApprovals = sqliteTable('pending_approvals', {
  kind: text('kind').notNull(), // tool | definition | release | call
  target: text('target').notNull(),
  subject: text('subject').notNull(),
  operatorId: text('operator_id').notNull(),
  actor: text('actor').notNull(),
  at: integer('at').notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.target] })])

export type Operator = typeof operators.$inferSelect
export type PersonalToken = typeof personalTokens.$inferSelect
