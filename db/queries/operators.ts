import 'server-only'
import { and, asc, eq, gt, isNull, like, notInArray, or, sql } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { operatorInvitations, operators, operatorSessions, pendingApprovals, personalTokens, type Operator } from '@/db/schema'

// Named operators' SQL (lib/auth, lib/admin/operators.ts): accounts, invitations, personal tokens,
// sessions per person, and the two-person rule's first approvals.

export const operatorById = (db: DbLike, id: string): Operator | undefined =>
  db.select().from(operators).where(eq(operators.id, id)).get()

/** By username or e-mail (both unique), case-insensitively: what a person types to sign in. */
export const operatorByLogin = (db: DbLike, login: string): Operator | undefined => {
  const l = login.toLowerCase()
  return db.select().from(operators).where(or(eq(operators.username, l), eq(operators.email, l))).get()
}

/** The account an SSO identity (`iss` + " " + `sub`) was linked to. */
export const operatorByOidcSubject = (db: DbLike, subject: string): Operator | undefined =>
  db.select().from(operators).where(eq(operators.oidcSubject, subject)).get()

export const operatorByEmail = (db: DbLike, email: string): Operator | undefined =>
  db.select().from(operators).where(eq(operators.email, email.toLowerCase())).get()

export const operatorList = (db: DbLike): Operator[] => db.select().from(operators).orderBy(asc(operators.username)).all()

export const bootstrapAdmin = (db: DbLike): Operator | undefined => db.select().from(operators).where(eq(operators.source, 'bootstrap')).get()

export function insertOperator(tx: Tx, row: typeof operators.$inferInsert): void {
  tx.insert(operators).values(row).run()
}

/** Remove an account (a state file that no longer lists it): its invitations and tokens go with it (cascade), its sessions here. */
export function deleteOperator(tx: Tx, id: string): void {
  endCredentialsOf(tx, id, false)
  tx.delete(operators).where(eq(operators.id, id)).run()
}

export function updateOperator(tx: Tx, id: string, set: Partial<Pick<Operator, 'role' | 'enabled' | 'passwordHash' | 'name' | 'email' | 'oidcSubject'>>): void {
  tx.update(operators).set(set).where(eq(operators.id, id)).run()
}

/** End every session and token of one person (disabled, or a role lowered below a token's). Returns how many. */
export function endCredentialsOf(tx: Tx, operatorId: string, tokensToo = true): { sessions: number; tokens: number } {
  const sessions = tx.delete(operatorSessions).where(eq(operatorSessions.operatorId, operatorId)).run().changes
  const tokens = tokensToo ? tx.delete(personalTokens).where(eq(personalTokens.operatorId, operatorId)).run().changes : 0
  return { sessions, tokens }
}

// ---- sessions

export function insertSession(tx: Tx, row: typeof operatorSessions.$inferInsert): void {
  tx.insert(operatorSessions).values(row).run()
}

export function touchSession(tx: Tx, idHash: string, now: number): void {
  tx.update(operatorSessions).set({ lastSeenAt: now }).where(eq(operatorSessions.idHash, idHash)).run()
}

export function deleteSession(tx: Tx, idHash: string): number {
  return tx.delete(operatorSessions).where(eq(operatorSessions.idHash, idHash)).run().changes
}

/** A session by the short id the dashboard shows (a prefix of its hash), limited to one person unless `operatorId` is undefined. */
export function deleteSessionById(tx: Tx, shortId: string, operatorId: string | undefined): number {
  const match = like(operatorSessions.idHash, `${shortId}%`)
  return tx.delete(operatorSessions).where(operatorId === undefined ? match : and(match, eq(operatorSessions.operatorId, operatorId))).run().changes
}

/** The break-glass key was rotated: the sessions it opened end. */
export function deleteBreakGlassSessions(tx: Tx): number {
  return tx.delete(operatorSessions).where(eq(operatorSessions.auth, 'break-glass')).run().changes
}

/** Unexpired sessions with their person (idleness is judged by the caller). */
export function sessionsWithOperators(db: DbLike, now: number, operatorId?: string) {
  const live = gt(operatorSessions.expiresAt, now)
  return db.select({ session: operatorSessions, username: operators.username }).from(operatorSessions)
    .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
    .where(operatorId === undefined ? live : and(live, eq(operatorSessions.operatorId, operatorId))).all()
}

// ---- invitations

export function insertInvitation(tx: Tx, row: typeof operatorInvitations.$inferInsert): void {
  tx.insert(operatorInvitations).values(row).run()
}

export const invitationByHash = (db: DbLike, tokenHash: string) =>
  db.select().from(operatorInvitations).where(eq(operatorInvitations.tokenHash, tokenHash)).get()

/** Use an invitation: true only for the one caller that marked it (a second use finds it used). */
export function useInvitation(tx: Tx, tokenHash: string, now: number): boolean {
  return tx.update(operatorInvitations).set({ usedAt: now })
    .where(and(eq(operatorInvitations.tokenHash, tokenHash), isNull(operatorInvitations.usedAt), gt(operatorInvitations.expiresAt, now))).run().changes === 1
}

// ---- personal access tokens

export function insertPersonalToken(tx: Tx, row: typeof personalTokens.$inferInsert): void {
  tx.insert(personalTokens).values(row).run()
}

export const personalTokenByHash = (db: DbLike, tokenHash: string) =>
  db.select({ token: personalTokens, operator: operators }).from(personalTokens)
    .innerJoin(operators, eq(operators.id, personalTokens.operatorId)).where(eq(personalTokens.tokenHash, tokenHash)).get()

/** A person's tokens (never their hashes), or everyone's. */
export function personalTokenList(db: DbLike, operatorId?: string) {
  const q = db.select({ id: personalTokens.id, name: personalTokens.name, role: personalTokens.role, createdAt: personalTokens.createdAt, expiresAt: personalTokens.expiresAt,
    lastUsedAt: personalTokens.lastUsedAt, uses: personalTokens.uses, operatorId: personalTokens.operatorId, username: operators.username })
    .from(personalTokens).innerJoin(operators, eq(operators.id, personalTokens.operatorId))
  return (operatorId === undefined ? q : q.where(eq(personalTokens.operatorId, operatorId))).orderBy(asc(personalTokens.createdAt)).all()
}

export const personalTokenById = (db: DbLike, id: string) => db.select().from(personalTokens).where(eq(personalTokens.id, id)).get()

export function deletePersonalToken(tx: Tx, id: string): number {
  return tx.delete(personalTokens).where(eq(personalTokens.id, id)).run().changes
}

/** Tokens carrying more than a person's new role end (a token is at most its person's role). */
export function deleteTokensNotIn(tx: Tx, operatorId: string, keep: readonly string[]): number {
  return tx.delete(personalTokens).where(and(eq(personalTokens.operatorId, operatorId), notInArray(personalTokens.role, [...keep]))).run().changes
}

export function notePersonalTokenUse(tx: Tx, id: string, now: number): void {
  tx.update(personalTokens).set({ uses: sql`${personalTokens.uses} + 1`, lastUsedAt: now }).where(eq(personalTokens.id, id)).run()
}

// ---- two-person rule

export const pendingApproval = (db: DbLike, kind: string, target: string) =>
  db.select().from(pendingApprovals).where(and(eq(pendingApprovals.kind, kind), eq(pendingApprovals.target, target))).get()

export function putPendingApproval(tx: Tx, row: typeof pendingApprovals.$inferInsert): void {
  tx.insert(pendingApprovals).values(row).onConflictDoUpdate({ target: [pendingApprovals.kind, pendingApprovals.target], set: row }).run()
}

export function deletePendingApproval(tx: Tx, kind: string, target: string): void {
  tx.delete(pendingApprovals).where(and(eq(pendingApprovals.kind, kind), eq(pendingApprovals.target, target))).run()
}

/** Remove every first approval one person made; returns them. */
export const deletePendingApprovalsBy = (tx: Tx, operatorId: string) =>
  tx.delete(pendingApprovals).where(eq(pendingApprovals.operatorId, operatorId)).returning().all()

export const pendingApprovalsOf = (db: DbLike, kind: string) => db.select().from(pendingApprovals).where(eq(pendingApprovals.kind, kind)).all()
