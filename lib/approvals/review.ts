import 'server-only'
import type { Db, DbLike } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { readSettings } from '@/db/queries/settings'
import { serverState, serverStates, type ServerState } from '@/db/queries/servers'
import { knownDefinition, knownDefinitions, servedDefinition } from '@/db/queries/definitions'
import type { DefinitionKind, JsonObject, ServerDefinition } from '@/db/schema'
import { definitionChanges, definitionGroups, definitionId, groupOf, parseDefinitionId, type DefinitionGroup } from './server-definitions'
import { knownTool, reviewContext, reviewContexts } from '@/db/queries/tools'
import { presentRecords } from '@/lib/activity/present-records'
import type { ActivityItem } from '@/lib/activity/present'
import { badRequest, notFoundError } from '@/lib/core/errors'
import type { ApprovalStatus } from '@/lib/core/state'
import { classify, classifyServer, type Classification } from '@/lib/preflight/classifier'
import { parseToolId } from '@/lib/preflight/ids'
import { definitionDiff } from './definition'
import { approvedOf, definitionOf, type DefinitionChange, type FieldChange, type Finding } from '@/lib/core/definition'
import { reviewFindings } from './findings'
import { reachFindings, semanticDiff, type SemanticChange } from './semantic-diff'
import { crossings, describeCrossing } from '@/lib/surface/ceiling'
import { toolSurface } from '@/lib/surface/report'
import type { OverlapPair } from '@/lib/surface/overlap'

const HISTORY = 20

/** The definition an operator names (a prompt `server:name`, a resource's toolgate URI, a server for its instructions), or the not-found error. */
export function requireDefinition(db: DbLike, group: DefinitionGroup, id: string): ServerDefinition {
  const g = definitionGroups[group]
  const parsed = parseDefinitionId(group, id)
  if (!parsed) throw badRequest(`"${id}" is not a ${g.noun} id: expected ${g.id}`)
  const d = knownDefinition(db, parsed.server, g.kinds, parsed.key)
  if (!d) throw notFoundError(`no ${g.noun} "${id}" is known to toolgate (toolgate ${group} list shows them)`)
  return d
}

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
  approval: { status: ApprovalStatus | 'none'; blocked: boolean; approved_pin: string | null }
  call_approval: boolean
  /** when the server offers something other than what was approved: the approved definition against the one now offered */
  diff: FieldChange[]
  /** the same change by meaning — parameters, required, enums, annotations, sentences — riskiest first */
  changes: SemanticChange[]
  /** the definition's own findings, and for a changed one what the change widens (widened_reach) */
  findings: Finding[]
  /** what serving it costs: its tokens on every tools/list, the served tools it reads most like,
   * and the scopes approving it would bring over the overlap ceiling (approval then asks first) */
  surface: { tokens: number; closest: OverlapPair[]; crossings: string[] }
  history: ActivityItem[]
}

function reviewedTool(db: Db, id: string) {
  const parsed = parseToolId(id)
  if ('malformed' in parsed) throw badRequest(`"${id}" is not a tool id: expected <server>:<tool>`)
  const tool = knownTool(db, parsed.server, parsed.tool)
  if (!tool) throw notFoundError(`no tool "${parsed.id}" is known to toolgate`)
  return { parsed, tool }
}

/**
 * The costly part of a review: the tool scored against every served tool, and every scope
 * served again with it (the dashboard runs it off the request loop: lib/dashboard/heavy.ts).
 */
export function reviewSurface(db: Db, id: string): ToolReview['surface'] {
  const { tool } = reviewedTool(db, id)
  return {
    ...toolSurface(db, tool),
    crossings: tool.approval?.status === 'approved' ? [] : crossings(db, [tool]).map(describeCrossing),
  }
}

/** How many review findings each tool has: the other servers and their tools read once for the whole list. */
export function findingCounts(db: Db, ids: readonly string[]): Record<string, number> {
  const contextOf = reviewContexts(db)
  return Object.fromEntries(ids.map((id) => {
    const { parsed, tool } = reviewedTool(db, id)
    return [id, reviewFindings(definitionOf(tool), contextOf(parsed.server)).length]
  }))
}

/** A tool's review; `surface` when the caller computed it already (elsewhere). */
export function toolReview(db: Db, id: string, surface?: ToolReview['surface']): ToolReview {
  const { parsed, tool } = reviewedTool(db, id)
  const server = serverState(db, parsed.server)
  const definition = definitionOf(tool)
  const moved = tool.approved && tool.approvedHash !== tool.hash
  const changes = moved ? semanticDiff(tool.approved!, approvedOf(tool)) : []
  return {
    id: parsed.id,
    status: classify(server, tool.name, tool, readSettings(db).quarantineEnabled),
    pin: tool.hash,
    definition,
    approval: { status: tool.approval?.status ?? 'none', blocked: tool.approval?.disabled ?? false, approved_pin: tool.approval ? tool.approvedHash : tool.hash },
    call_approval: server?.callApprovalTools.includes(tool.name) ?? false,
    diff: moved ? definitionDiff(tool.approved!, approvedOf(tool)) : [],
    changes,
    findings: [...reviewFindings(definition, reviewContext(db, parsed.server)), ...reachFindings(changes)],
    surface: surface ?? reviewSurface(db, parsed.id),
    history: presentRecords(db, listActivity(db, { server: parsed.server, limit: 500 })
      .filter((r) => 'target' in r.data && r.data.target === parsed.id).slice(0, HISTORY)),
  }
}

/** One of a server's instructions, prompts, resources or templates as operators see it. */
export interface DefinitionRow {
  id: string
  kind: DefinitionKind
  /** the group it is approved under (toolgate prompts|resources|instructions approve) */
  group: DefinitionGroup
  server: string
  /** undecided: seen only by an inspection (releasing the server approves it as shown) */
  status: ApprovalStatus | 'undecided'
  /** whether agents are served it now: approved (or the approval gate off for it), on a released, enabled server */
  served: boolean
  pin: string
  approved_pin: string | null
}

function rowOf(d: ServerDefinition, server: ServerState | undefined, quarantineEnabled: boolean): DefinitionRow {
  return {
    id: definitionId(d.serverName, d.kind, d.key), kind: d.kind, group: groupOf(d.kind), server: d.serverName, status: d.status ?? 'undecided',
    served: !!server && classifyServer(server) === 'ok' && servedDefinition(d, server.trust, quarantineEnabled) !== undefined,
    pin: d.hash, approved_pin: d.approvedHash,
  }
}

/** The definitions of one group (of one server, or all), as `toolgate prompts|resources|instructions list` and the server page show them. */
export function definitionRows(db: Db, group: DefinitionGroup, server?: string): DefinitionRow[] {
  const quarantineEnabled = readSettings(db).quarantineEnabled
  const states = new Map(serverStates(db, server).map((s) => [s.name, s]))
  return knownDefinitions(db, { ...(server !== undefined ? { servers: [server] } : {}), kinds: definitionGroups[group].kinds })
    .map((d) => rowOf(d, states.get(d.serverName), quarantineEnabled))
}

/**
 * Everything an operator needs to decide on a server's instructions, a prompt, a resource or a
 * template, as for a tool: the definition its server offers now (which approving accepts), its
 * pin, what changed since it was approved, review findings, and its history on the record.
 */
export interface DefinitionReview extends DefinitionRow {
  definition: JsonObject
  diff: DefinitionChange[]
  findings: Finding[]
  history: ActivityItem[]
}

export function definitionReview(db: Db, group: DefinitionGroup, id: string): DefinitionReview {
  const d = requireDefinition(db, group, id)
  const row = rowOf(d, serverStates(db, d.serverName)[0], readSettings(db).quarantineEnabled)
  return {
    ...row,
    definition: d.definition,
    diff: d.approved && d.approvedHash !== d.hash ? definitionChanges(d.approved, d.definition) : [],
    findings: reviewFindings(d.definition, reviewContext(db, d.serverName)),
    history: presentRecords(db, listActivity(db, { server: d.serverName, limit: 500 })
      .filter((r) => 'target' in r.data && r.data.target === row.id && r.type.startsWith('definition.')).slice(0, HISTORY)),
  }
}
