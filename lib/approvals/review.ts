import 'server-only'
import type { Db } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { readSettings } from '@/db/queries/settings'
import { serverState } from '@/db/queries/servers'
import { knownTool, reviewContext } from '@/db/queries/tools'
import { presentActivity, type ActivityItem } from '@/lib/activity/present'
import { badRequest, notFoundError } from '@/lib/errors'
import { classify, type Classification } from '@/lib/preflight/classifier'
import { parseToolId } from '@/lib/preflight/ids'
import { approvedOf, definitionDiff, definitionOf, type FieldChange } from './definition'
import { reviewFindings, type Finding } from './findings'
import { crossings, describeCrossing } from '@/lib/surface/ceiling'
import { toolSurface } from '@/lib/surface/report'
import type { OverlapPair } from '@/lib/surface/overlap'

const HISTORY = 20

/**
 * Everything an operator needs to decide on a tool, and nothing they would have to guess:
 * the full definition agents would be served, its pin, its approval, what changed since it was
 * approved (field by field), review findings, and its history on the record.
 */
export interface ToolReview {
  id: string
  status: Classification
  pin: string | null
  /** the definition its server offers now, which approving accepts (the upstream's own name; agents see `server:tool`) */
  definition: ReturnType<typeof definitionOf>
  approval: { status: 'approved' | 'pending' | 'changed' | 'none'; blocked: boolean; approved_pin: string | null }
  call_approval: boolean
  /** when the server offers something other than what was approved: the approved definition against the one now offered */
  diff: FieldChange[]
  findings: Finding[]
  /** what serving it costs: its tokens on every tools/list, the served tools it reads most like,
   * and the scopes approving it would bring over the overlap ceiling (approval then asks first) */
  surface: { tokens: number; closest: OverlapPair[]; crossings: string[] }
  history: ActivityItem[]
}

export function toolReview(db: Db, id: string): ToolReview {
  const parsed = parseToolId(id)
  if ('malformed' in parsed) throw badRequest(`"${id}" is not a tool id: expected <server>:<tool>`)
  const tool = knownTool(db, parsed.server, parsed.tool)
  if (!tool) throw notFoundError(`no tool "${parsed.id}" is known to toolgate`)
  const server = serverState(db, parsed.server)
  const definition = definitionOf(tool)
  const moved = tool.approved && tool.approvedHash !== tool.hash
  return {
    id: parsed.id,
    status: classify(server, tool.name, tool, readSettings(db).quarantineEnabled),
    pin: tool.hash,
    definition,
    approval: { status: tool.approval?.status ?? 'none', blocked: tool.approval?.disabled ?? false, approved_pin: tool.approval ? tool.approvedHash : tool.hash },
    call_approval: server?.callApprovalTools.includes(tool.name) ?? false,
    diff: moved ? definitionDiff(tool.approved!, approvedOf(tool)) : [],
    findings: reviewFindings(definition, reviewContext(db, parsed.server)),
    surface: {
      ...toolSurface(db, tool),
      crossings: tool.approval?.status === 'approved' ? [] : crossings(db, [tool]).map(describeCrossing),
    },
    history: listActivity(db, { server: parsed.server, limit: 500 })
      .filter((r) => 'target' in r.data && r.data.target === parsed.id).slice(0, HISTORY).map(presentActivity),
  }
}
