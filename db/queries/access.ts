import 'server-only'
import { and, asc, eq, isNull, lt, or } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { agentTokens, profiles } from '@/db/schema'

/** Agent tokens as operators see them: never the secret or its hash. */
const TOKEN_COLUMNS = {
  name: agentTokens.name, allowedServers: agentTokens.allowedServers, profilePin: agentTokens.profilePin,
  createdAt: agentTokens.createdAt, expiresAt: agentTokens.expiresAt, lastUsedAt: agentTokens.lastUsedAt,
}

export function tokens(db: DbLike) {
  return db.select(TOKEN_COLUMNS)
    .from(agentTokens).orderBy(asc(agentTokens.name)).all()
}
export type TokenRow = ReturnType<typeof tokens>[number]

export function tokenByName(db: DbLike, name: string): TokenRow | undefined {
  return db.select(TOKEN_COLUMNS)
    .from(agentTokens).where(eq(agentTokens.name, name)).get()
}

/** A token's scope by its immutable id (a later token may take the name of a revoked one). */
export function tokenById(db: DbLike, id: string): TokenRow | undefined {
  return db.select(TOKEN_COLUMNS)
    .from(agentTokens).where(eq(agentTokens.id, id)).get()
}

export function profileList(db: DbLike) {
  return db.select().from(profiles).orderBy(asc(profiles.name)).all()
}

export function profileServers(db: DbLike, name: string): string[] | undefined {
  return db.select({ servers: profiles.servers }).from(profiles).where(eq(profiles.name, name)).get()?.servers
}

/** Tokens with their stored hashes: only `state dump` needs these (a dump must load back). */
export function tokensWithHashes(db: DbLike) {
  return db.select().from(agentTokens).orderBy(asc(agentTokens.name)).all()
}

// Writes, each inside the caller's write transaction (with the change's record).

export function insertProfile(tx: Tx, name: string, servers: string[]): void {
  tx.insert(profiles).values({ name, servers }).run()
}

export function setProfileServers(tx: Tx, name: string, servers: string[]): void {
  tx.update(profiles).set({ servers }).where(eq(profiles.name, name)).run()
}

export function removeProfile(tx: Tx, name: string): void {
  tx.delete(profiles).where(eq(profiles.name, name)).run()
}

/** An agent token's stored fields: its secret only as a hash. */
export interface NewToken { name: string; id: string; tokenHash: string; allowedServers: readonly string[]; profilePin: string | null; createdAt: number; expiresAt: number | null; lastUsedAt?: number | null }

export function insertToken(tx: Tx, t: NewToken): void {
  tx.insert(agentTokens).values({ ...t, allowedServers: [...t.allowedServers] }).run()
}

export function setTokenScope(tx: Tx, name: string, scope: { allowedServers: readonly string[]; profilePin: string | null }): void {
  tx.update(agentTokens).set({ allowedServers: [...scope.allowedServers], profilePin: scope.profilePin }).where(eq(agentTokens.name, name)).run()
}

/** Give a token a new secret (stored hashed): the old one stops working with this commit. */
export function setTokenHash(tx: Tx, name: string, tokenHash: string): void {
  tx.update(agentTokens).set({ tokenHash }).where(eq(agentTokens.name, name)).run()
}

/** When a token stops working (ms); null = never. */
export function setTokenExpiry(tx: Tx, name: string, expiresAt: number | null): void {
  tx.update(agentTokens).set({ expiresAt }).where(eq(agentTokens.name, name)).run()
}

/**
 * Note that a token authenticated at `now`, unless a use within `everyMs` is already noted: the
 * condition is in the statement, so processes racing on one stale value write it once.
 */
export function noteTokenUse(tx: Tx, id: string, now: number, everyMs: number): void {
  tx.update(agentTokens).set({ lastUsedAt: now })
    .where(and(eq(agentTokens.id, id), or(isNull(agentTokens.lastUsedAt), lt(agentTokens.lastUsedAt, now - everyMs)))).run()
}

export function removeToken(tx: Tx, name: string): void {
  tx.delete(agentTokens).where(eq(agentTokens.name, name)).run()
}
