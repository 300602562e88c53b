import 'server-only'
import { and, eq, like, not } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { serverDefinitions, toolApprovals, tools, type ServerDefinition, type ToolApproval } from '@/db/schema'

/*
 * The pin upgrade's reads and writes (lib/approvals/pin-upgrade.ts): pins made under an older
 * hash schema, found by their prefix, and re-pinned.
 */

/** The tools and server definitions whose pins do not start with `prefix` (e.g. "sha256/v3:"). */
export function stalePins(db: DbLike, prefix: string) {
  return {
    tools: db.select().from(tools).where(not(like(tools.hash, `${prefix}%`))).all(),
    definitions: db.select().from(serverDefinitions).where(not(like(serverDefinitions.hash, `${prefix}%`))).all(),
  }
}

export function setDefinitionPins(tx: Tx, d: Pick<ServerDefinition, 'serverName' | 'kind' | 'key'>, hash: string, approvedHash: string | null): void {
  tx.update(serverDefinitions).set({ hash, approvedHash })
    .where(and(eq(serverDefinitions.serverName, d.serverName), eq(serverDefinitions.kind, d.kind), eq(serverDefinitions.key, d.key))).run()
}

export function setToolPin(tx: Tx, serverName: string, name: string, hash: string): void {
  tx.update(tools).set({ hash }).where(and(eq(tools.serverName, serverName), eq(tools.name, name))).run()
}

const approvalKey = (serverName: string, toolName: string) => and(eq(toolApprovals.serverName, serverName), eq(toolApprovals.toolName, toolName))

export function toolApprovalOf(db: DbLike, serverName: string, toolName: string): ToolApproval | undefined {
  return db.select().from(toolApprovals).where(approvalKey(serverName, toolName)).get()
}

export function updateApproval(tx: Tx, serverName: string, toolName: string, change: Partial<Pick<ToolApproval, 'status' | 'approved' | 'approvedHash'>>): void {
  tx.update(toolApprovals).set(change).where(approvalKey(serverName, toolName)).run()
}
