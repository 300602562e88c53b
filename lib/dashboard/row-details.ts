import 'server-only'
import type { Db } from '@/db/client'
import type { JsonObject, ToolAnnotations } from '@/db/schema'
import { knownTool, knownTools } from '@/db/queries/tools'
import { serverConfig } from '@/db/queries/servers'
import { readSettings } from '@/db/queries/settings'
import { classifyTool } from '@/lib/preflight/classifier'
import type { ToolResult } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'

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
  const tool = knownTool(db, server, name)
  if (!tool?.approval) return undefined
  const prev = tool.previous ?? {}
  return {
    kind: 'diff',
    approved: { description: prev.description ?? null, input_schema: prev.input_schema ?? null, output_schema: prev.output_schema ?? null },
    current: { description: tool.description, input_schema: tool.inputSchema, output_schema: tool.outputSchema },
  }
}

/** Every tool a quarantined server would expose if released, judged by the shared classifier. */
export function releaseExposure(db: Db, server: string): RowDetail | undefined {
  const sv = serverConfig(db, server)
  if (!sv) return undefined
  const { quarantineEnabled } = readSettings(db)
  return {
    kind: 'exposure', server,
    tools: knownTools(db, server).map((t) => ({
      name: t.name, description: t.description, annotations: t.annotations,
      after_release: classifyTool(sv, t.name, t, quarantineEnabled),
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
