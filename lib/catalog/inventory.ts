import 'server-only'
import type { DbLike } from '@/db/client'
import { knownTools, type KnownTool } from '@/db/queries/tools'
import { readSettings } from '@/db/queries/settings'
import { serverStates, type ServerState } from '@/db/queries/servers'
import { classify, type Classification } from '@/lib/preflight/classifier'

/** One known tool as operators see it: its definition and pin, and what the shared classifier says of it. */
export interface InventoryTool {
  id: string
  server: string
  name: string
  /** the classifier's verdict: callable, or the gate that withholds it */
  status: Classification
  approval: 'approved' | 'pending' | 'changed' | 'none'
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
