import 'server-only'
import type { Db } from '@/db/client'
import type { ApprovedDefinition, ToolAnnotations } from '@/db/schema'
import { knownTool, knownTools, reviewContext } from '@/db/queries/tools'
import { serverState } from '@/db/queries/servers'
import { readSettings } from '@/db/queries/settings'
import { approvedOf, definitionOf } from '@/lib/core/definition'
import type { Finding } from '@/lib/core/definition'
import { reviewFindings } from '@/lib/approvals/findings'
import { reachFindings, semanticDiff } from '@/lib/approvals/semantic-diff'
import { toolReview, type ToolReview } from '@/lib/approvals/review'
import { classifyTool } from '@/lib/preflight/classifier'
import type { ToolResult } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'
import { heavy } from './heavy'

export interface ExposedTool {
  name: string
  description: string | null
  annotations: ToolAnnotations | null
  /** the full definition a release approves (input schema and all), shown in the review, not behind a click */
  definition: ApprovedDefinition & { name: string }
  /** the pin of the definition shown: releasing approves exactly this one */
  pin: string | null
  /** the definition's findings, and for one approved before and changed since what the change widens */
  findings: Finding[]
  /** what the shared classifier says once the quarantine is lifted: callable, or the gate that still holds it */
  after_release: string
}

/** What a row's fix needs shown before it runs. */
export type RowDetail =
  /** approve: the full definition, the diff for a changed tool, review findings, the pin */
  | { kind: 'review'; review: ToolReview }
  /** release: every tool the server would serve, with the pins a release approves */
  | { kind: 'exposure'; server: string; inspectedAt: number | null; tools: ExposedTool[] }
  /** lifting a deliberate block: say what the operator is about to undo */
  | { kind: 'confirm'; message: string }

/** Every tool a quarantined server would expose if released, judged by the shared classifier. */
export function releaseExposure(db: Db, server: string): Extract<RowDetail, { kind: 'exposure' }> | undefined {
  const sv = serverState(db, server)
  if (!sv) return undefined
  const { quarantineEnabled } = readSettings(db)
  const context = reviewContext(db, server)
  return {
    kind: 'exposure', server, inspectedAt: sv.inspectedAt,
    tools: knownTools(db, server).map((t) => ({
      name: t.name, description: t.description, annotations: t.annotations, definition: definitionOf(t), pin: t.hash,
      findings: [...reviewFindings(definitionOf(t), context), ...(t.approved && t.approvedHash !== t.hash ? reachFindings(semanticDiff(t.approved, approvedOf(t))) : [])],
      after_release: classifyTool(sv, t.name, t, quarantineEnabled),
    })),
  }
}

async function detailFor(db: Db, r: Extract<ToolResult, { status: 'unavailable' }>, server: string, tool: string): Promise<RowDetail | undefined> {
  switch (r.reason) {
    case 'tool_pending_approval':
    case 'tool_changed':
      // its overlap with every served tool is scored in the worker, off the request loop
      return { kind: 'review', review: toolReview(db, r.id, await heavy(db, { kind: 'review-surface', id: r.id })) }
    case 'server_quarantined':
      return releaseExposure(db, server)
    case 'tool_blocked_by_user':
      return knownTool(db, server, tool)?.annotations?.destructiveHint === true
        ? { kind: 'confirm', message: `${r.id} is annotated destructive, and an operator blocked it on purpose. Unblock it?` }
        : undefined
    case 'tool_denied_by_config':
      return { kind: 'confirm', message: `Server "${server}"'s configuration denies ${r.id} on purpose. Allow it?` }
    default:
      return undefined
  }
}

/** Details for the rows whose remediation must be reviewed or confirmed first. */
export async function rowDetails(db: Db, results: readonly ToolResult[]): Promise<Record<string, RowDetail>> {
  const out: Record<string, RowDetail> = {}
  for (const r of results) {
    if (r.status === 'ready') continue
    const p = parseToolId(r.id)
    if ('malformed' in p) continue
    const detail = await detailFor(db, r, p.server, p.tool)
    if (detail) out[r.id] = detail
  }
  return out
}
