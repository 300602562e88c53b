import { and, asc, eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { servers, serverConnections, settings, toolApprovals, tools } from '../../db/schema'
import { classify } from '../preflight/classifier'

export interface CatalogTool {
  id: string
  server: string
  name: string
  status: string // the classifier's verdict: callable, or the gate that withholds it
  approval: string // approved | pending | changed | none
  blocked: boolean
  connection: string
  pin: string | null
  annotations: Record<string, unknown> | null
}

/** Every known tool with its status and pin — an operator-tier view. */
export function listTools(db: Db, server?: string): CatalogTool[] {
  return db.transaction((tx) => {
    const q = tx.select({
      server: tools.serverName, name: tools.name, hash: tools.hash, annotations: tools.annotations,
      status: toolApprovals.status, disabled: toolApprovals.disabled,
      enabled: servers.enabled, quarantined: servers.quarantined, trust: servers.trust,
      disabledTools: servers.disabledTools, enabledTools: servers.enabledTools, conn: serverConnections.state,
    }).from(tools)
      .innerJoin(servers, eq(servers.name, tools.serverName))
      .leftJoin(toolApprovals, and(eq(toolApprovals.serverName, tools.serverName), eq(toolApprovals.toolName, tools.name)))
      .leftJoin(serverConnections, eq(serverConnections.serverName, tools.serverName))
      .where(server ? eq(tools.serverName, server) : undefined)
      .orderBy(asc(tools.serverName), asc(tools.name))
    const quarantineEnabled = tx.select({ q: settings.quarantineEnabled }).from(settings).get()?.q ?? true
    return q.all().map((r) => {
      const approval = r.status ? { status: r.status, disabled: r.disabled ?? false } : null
      const sv = { name: r.server, enabled: r.enabled, quarantined: r.quarantined, trust: r.trust, disabledTools: r.disabledTools, enabledTools: r.enabledTools }
      return {
        id: `${r.server}:${r.name}`, server: r.server, name: r.name,
        status: classify(sv, r.name, { approval }, quarantineEnabled),
        approval: r.status ?? 'none', blocked: r.disabled ?? false,
        connection: r.conn ?? 'unpublished', pin: r.hash, annotations: r.annotations,
      }
    })
  })
}
