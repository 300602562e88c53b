import { pgTable, bigint, boolean, text, index, primaryKey } from 'drizzle-orm/pg-core'

// PostgreSQL twin of db/schema/operators.ts (what each column means is written there); tests/postgres/schema-parity.test.ts keeps the two equal.
export const operators = pgTable('operators', {
  id: text('id').primaryKey(),
  username: text('username').notNull().unique(),
  name: text('name').notNull(),
  email: text('email').unique(),
  role: text('role').notNull(),
  enabled: boolean('enabled').notNull().default(true),
  passwordHash: text('password_hash'),
  source: text('source').notNull(),
  oidcSubject: text('oidc_subject').unique(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
})

export const operatorInvitations = pgTable('operator_invitations', {
  tokenHash: text('token_hash').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id, { onDelete: 'cascade' }),
  createdBy: text('created_by').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  usedAt: bigint('used_at', { mode: 'number' }),
})

export const personalTokens = pgTable('personal_tokens', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  role: text('role').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  lastUsedAt: bigint('last_used_at', { mode: 'number' }),
  uses: bigint('uses', { mode: 'number' }).notNull().default(0),
}, (t) => [index('personal_tokens_operator').on(t.operatorId)])

export const pendingApprovals = pgTable('pending_approvals', {
  kind: text('kind').notNull(),
  target: text('target').notNull(),
  subject: text('subject').notNull(),
  operatorId: text('operator_id').notNull(),
  actor: text('actor').notNull(),
  at: bigint('at', { mode: 'number' }).notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.target] })])
