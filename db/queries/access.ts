import 'server-only'
import { asc, eq } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { agentTokens, profiles } from '@/db/schema'

/** Agent tokens as operators see them: never the secret or its hash. */
export function tokens(db: DbLike) {
  return db.select({ name: agentTokens.name, allowedServers: agentTokens.allowedServers, profilePin: agentTokens.profilePin, createdAt: agentTokens.createdAt })
    .from(agentTokens).orderBy(asc(agentTokens.name)).all()
}
export type TokenRow = ReturnType<typeof tokens>[number]

export function tokenByName(db: DbLike, name: string): TokenRow | undefined {
  return db.select({ name: agentTokens.name, allowedServers: agentTokens.allowedServers, profilePin: agentTokens.profilePin, createdAt: agentTokens.createdAt })
    .from(agentTokens).where(eq(agentTokens.name, name)).get()
}

/** A token's scope by its immutable id (a later token may take the name of a revoked one). */
export function tokenById(db: DbLike, id: string): TokenRow | undefined {
  return db.select({ name: agentTokens.name, allowedServers: agentTokens.allowedServers, profilePin: agentTokens.profilePin, createdAt: agentTokens.createdAt })
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
export interface NewToken { name: string; id: string; tokenHash: string; allowedServers: readonly string[]; profilePin: string | null; createdAt: number }

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

export function removeToken(tx: Tx, name: string): void {
  tx.delete(agentTokens).where(eq(agentTokens.name, name)).run()
}
