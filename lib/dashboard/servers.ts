import { asc, eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { serverConnections, servers, tools } from '../../db/schema'
import { listTools, type CatalogTool } from '../admin/catalog'

/** Connection health, kept apart from admin state: one is what the operator set, the other what the runtime sees. */
export type Health = 'ready' | 'starting' | 'login_needed' | 'unhealthy' | 'unpublished'
const healthOf: Record<string, Health> = {
  ready: 'ready', connecting: 'starting', discovering: 'starting', authenticating: 'starting',
  pending_auth: 'login_needed', error: 'unhealthy', disconnected: 'unhealthy',
}

export interface ServerRow {
  name: string
  enabled: boolean
  quarantined: boolean
  trust: 'manual' | 'auto'
  connection: { state: string; detail: string | null; action: string | null } | null
  health: Health
  tools: { total: number; callable: number; pending: number; changed: number; blocked: number }
}

function countTools(list: readonly CatalogTool[]) {
  return {
    total: list.length,
    callable: list.filter((t) => t.status === 'callable').length,
    pending: list.filter((t) => t.status === 'tool_pending_approval').length,
    changed: list.filter((t) => t.status === 'tool_changed').length,
    blocked: list.filter((t) => t.blocked).length,
  }
}

export function serverRows(db: Db): ServerRow[] {
  const byServer = new Map<string, CatalogTool[]>()
  for (const t of listTools(db)) byServer.set(t.server, [...(byServer.get(t.server) ?? []), t])
  return db.select({
    name: servers.name, enabled: servers.enabled, quarantined: servers.quarantined, trust: servers.trust,
    state: serverConnections.state, detail: serverConnections.detail, action: serverConnections.action,
  }).from(servers).leftJoin(serverConnections, eq(serverConnections.serverName, servers.name)).orderBy(asc(servers.name)).all()
    .map((s) => ({
      name: s.name, enabled: s.enabled, quarantined: s.quarantined, trust: s.trust,
      connection: s.state ? { state: s.state, detail: s.detail, action: s.action } : null,
      health: s.state ? healthOf[s.state] : 'unpublished',
      tools: countTools(byServer.get(s.name) ?? []),
    }))
}

export interface ServerTool extends CatalogTool { description: string | null }

/** One server with its settings and every tool it has (served or withheld), with pins. */
export function serverDetail(db: Db, name: string) {
  const row = serverRows(db).find((s) => s.name === name)
  if (!row) return undefined
  const settings = db.select({ disabledTools: servers.disabledTools, enabledTools: servers.enabledTools, trust: servers.trust }).from(servers).where(eq(servers.name, name)).get()!
  const descriptions = new Map(db.select({ name: tools.name, d: tools.description }).from(tools).where(eq(tools.serverName, name)).all().map((t) => [t.name, t.d]))
  const list: ServerTool[] = listTools(db, name).map((t) => ({ ...t, description: descriptions.get(t.name) ?? null }))
  return { ...row, settings, toolList: list }
}
