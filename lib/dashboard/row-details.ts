import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { servers, settings, toolApprovals, tools, type JsonObject, type ToolAnnotations } from '../../db/schema'
import { classifyTool } from '../preflight/classifier'
import type { ToolResult } from '../preflight/evaluate'
import { parseToolId } from '../preflight/ids'

export interface Definition { description: string | null; input_schema: JsonObject | null; output_schema: JsonObject | null }

export interface ExposedTool {
  name: string
  description: string | null
  annotations: ToolAnnotations | null
  /** what the shared classifier says once the quarantine is lifted: callable, or the gate that still holds it */
  after_release: string
}

export type RowDetail =
  | { kind: 'diff'; approved: Definition; current: Definition }
  | { kind: 'exposure'; server: string; tools: ExposedTool[] }

/** The approved definition kept for a changed tool, against the one now offered. */
export function toolChange(db: Db, server: string, name: string): RowDetail | undefined {
  const row = db.select({
    description: tools.description, input: tools.inputSchema, output: tools.outputSchema, previous: toolApprovals.previous,
  }).from(tools)
    .innerJoin(toolApprovals, and(eq(toolApprovals.serverName, tools.serverName), eq(toolApprovals.toolName, tools.name)))
    .where(and(eq(tools.serverName, server), eq(tools.name, name))).get()
  if (!row) return undefined
  const prev = row.previous ?? {}
  return {
    kind: 'diff',
    approved: { description: prev.description ?? null, input_schema: prev.input_schema ?? null, output_schema: prev.output_schema ?? null },
    current: { description: row.description, input_schema: row.input, output_schema: row.output },
  }
}

/** Every tool a quarantined server would expose if released, judged by the shared classifier. */
export function releaseExposure(db: Db, server: string): RowDetail | undefined {
  const sv = db.select().from(servers).where(eq(servers.name, server)).get()
  if (!sv) return undefined
  const quarantineEnabled = db.select({ q: settings.quarantineEnabled }).from(settings).get()?.q ?? true
  const rows = db.select({
    name: tools.name, description: tools.description, annotations: tools.annotations,
    status: toolApprovals.status, disabled: toolApprovals.disabled,
  }).from(tools)
    .leftJoin(toolApprovals, and(eq(toolApprovals.serverName, tools.serverName), eq(toolApprovals.toolName, tools.name)))
    .where(eq(tools.serverName, server)).orderBy(tools.name).all()
  return {
    kind: 'exposure', server,
    tools: rows.map((r) => ({
      name: r.name, description: r.description, annotations: r.annotations,
      after_release: classifyTool(sv, r.name, { approval: r.status ? { status: r.status, disabled: r.disabled ?? false } : null }, quarantineEnabled),
    })),
  }
}

/** Details for the rows whose remediation must be reviewed first (tool_changed, server_quarantined). */
export function rowDetails(db: Db, results: readonly ToolResult[]): Record<string, RowDetail> {
  const out: Record<string, RowDetail> = {}
  const exposures = new Map<string, RowDetail | undefined>()
  for (const r of results) {
    if (r.status === 'ready' || (r.reason !== 'tool_changed' && r.reason !== 'server_quarantined')) continue
    const p = parseToolId(r.id)
    if ('malformed' in p) continue
    const detail = r.reason === 'tool_changed'
      ? toolChange(db, p.server, p.tool)
      : exposures.has(p.server) ? exposures.get(p.server) : exposures.set(p.server, releaseExposure(db, p.server)).get(p.server)
    if (detail) out[r.id] = detail
  }
  return out
}
