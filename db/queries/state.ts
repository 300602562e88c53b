import 'server-only'
import type { Tx } from '@/db/client'
import { agentTokens, profiles, serverConnections, serverDefinitions, serverOauth, serverSecrets, servers, tools } from '@/db/schema'

/*
 * A state load replaces the proxy state in one transaction (lib/state/load.ts): what it keeps
 * across the replacement is read first, everything is deleted, and the file's state is written.
 */

/** What a load may carry over: each server's transport, its stored credentials (as stored: sealed), the tokens' ids and last uses by hash, the server definitions. */
export function carriedOver(tx: Tx) {
  return {
    transports: new Map(tx.select({ name: servers.name, transport: servers.transport }).from(servers).all().map((r) => [r.name, r.transport])),
    secrets: tx.select().from(serverSecrets).all(),
    oauth: tx.select().from(serverOauth).all(),
    tokensByHash: new Map(tx.select({ hash: agentTokens.tokenHash, id: agentTokens.id, lastUsedAt: agentTokens.lastUsedAt }).from(agentTokens).all().map((t) => [t.hash, t])),
    definitions: tx.select().from(serverDefinitions).all(),
  }
}
export type CarriedOver = ReturnType<typeof carriedOver>

/** Delete every server (cascading to connections, tools, approvals, secrets, OAuth state and definitions), profile and agent token; activity is kept. */
export function clearState(tx: Tx): void {
  tx.delete(servers).run()
  tx.delete(profiles).run()
  tx.delete(agentTokens).run()
}

/** Put a carried-over row back as it was read (secrets stay sealed). */
export function restoreSecret(tx: Tx, row: CarriedOver['secrets'][number]): void {
  tx.insert(serverSecrets).values(row).run()
}
export function restoreOauth(tx: Tx, row: CarriedOver['oauth'][number]): void {
  tx.insert(serverOauth).values(row).run()
}
export function restoreDefinition(tx: Tx, row: CarriedOver['definitions'][number]): void {
  tx.insert(serverDefinitions).values(row).run()
}

/** A connection state as a state file publishes it. */
export function insertConnection(tx: Tx, row: typeof serverConnections.$inferInsert): void {
  tx.insert(serverConnections).values(row).run()
}

/** A tool as a state file lists it. */
export function insertTool(tx: Tx, row: typeof tools.$inferInsert): void {
  tx.insert(tools).values(row).run()
}
