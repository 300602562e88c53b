import 'server-only'
import type { DbLike } from '@/db/client'
import { gatedTools, knownTools, toolApprovalList, type KnownTool } from '@/db/queries/tools'
import { readSettings } from '@/db/queries/settings'
import { serverStates, type ServerState } from '@/db/queries/servers'
import { classify, type Classification } from '@/lib/preflight/classifier'
import type { ApprovalStatus } from '@/lib/core/state'

/** One known tool as operators see it: its definition and pin, and what the shared classifier says of it. */
export interface InventoryTool {
  id: string
  server: string
  name: string
  /** the classifier's verdict: callable, or the gate that withholds it */
  status: Classification
  approval: ApprovalStatus | 'none'
  blocked: boolean
  /** the server's believed connection state, or unpublished */
  connection: string
  pin: string | null
  description: string | null
  annotations: KnownTool['annotations']
  /** the last decision on its approval: who, when ("approved by alice, 5 min ago") */
  decided: { by: string; at: string } | null
}

export function inventoryOf(tool: KnownTool, server: ServerState | undefined, quarantineEnabled: boolean): InventoryTool {
  return {
    id: `${tool.server}:${tool.name}`, server: tool.server, name: tool.name,
    status: classify(server, tool.name, tool, quarantineEnabled),
    approval: tool.approval?.status ?? 'none', blocked: tool.approval?.disabled ?? false,
    connection: server?.connection?.state ?? 'unpublished', pin: tool.hash,
    description: tool.description, annotations: tool.annotations,
    decided: tool.decidedBy && tool.decidedAt ? { by: tool.decidedBy, at: new Date(tool.decidedAt).toISOString() } : null,
  }
}

/** Every known tool (of one server, or all) with its status and pin — the operator tier's view. */
export function toolInventory(db: DbLike, server?: string): InventoryTool[] {
  const quarantineEnabled = readSettings(db).quarantineEnabled
  const byName = new Map(serverStates(db, server).map((s) => [s.name, s]))
  return knownTools(db, server).map((t) => inventoryOf(t, byName.get(t.server), quarantineEnabled))
}

/** A tool an operator holds back (waiting for approval or blocked), as the inventory judges it, without its definition. */
export type GatedInventoryTool = Pick<InventoryTool, 'id' | 'server' | 'name' | 'status' | 'blocked' | 'annotations'>

/**
 * The tools whose approval record is pending, changed or blocked, judged by the same classifier
 * as toolInventory (against `states`, the servers' states the caller has read): every other tool
 * is callable or approved and unblocked, so none of them is read.
 */
export function gatedInventory(db: DbLike, states: readonly ServerState[]): GatedInventoryTool[] {
  const quarantineEnabled = readSettings(db).quarantineEnabled
  const byName = new Map(states.map((s) => [s.name, s]))
  return gatedTools(db).map((t) => ({
    id: `${t.server}:${t.name}`, server: t.server, name: t.name, annotations: t.annotations,
    status: classify(byName.get(t.server), t.name, t, quarantineEnabled), blocked: t.approval.disabled,
  }))
}

/** A tool's status and block flag alone, for counting. */
export type ToolStatus = Pick<InventoryTool, 'server' | 'status' | 'blocked'>

/**
 * Every known tool's status and block flag, judged by the same classifier as toolInventory
 * (against `states`, the servers' states the caller has read), reading names and approvals
 * only: counts per server do not read a definition.
 */
export function toolStatuses(db: DbLike, states: readonly ServerState[]): ToolStatus[] {
  const quarantineEnabled = readSettings(db).quarantineEnabled
  const byName = new Map(states.map((s) => [s.name, s]))
  return toolApprovalList(db).map((t) => ({ server: t.server, status: classify(byName.get(t.server), t.name, t, quarantineEnabled), blocked: t.approval?.disabled ?? false }))
}
