import 'server-only'
import type { Db, Tx } from '@/db/client'
import { toolApprovals, type ToolApproval } from '@/db/schema'
import { knownTool } from '@/db/queries/tools'
import { writeTransaction } from '@/db/write'
import type { ActivityType } from '@/lib/activity/vocabulary'
import { badRequest, notFoundError } from '@/lib/errors'
import { parseToolId } from '@/lib/preflight/ids'
import { recordChange } from './record-change'

type ApprovalState = { status: ToolApproval['status'] | 'none'; disabled: boolean }

export interface ActionContext { actor: string; requestId?: string }

const actionsByType = {
  'tool.approved': (a: ApprovalState) => ({ status: 'approved' as const, disabled: a.disabled }),
  'tool.blocked': (a: ApprovalState) => ({ status: a.status === 'none' ? ('approved' as const) : a.status, disabled: true }),
  'tool.enabled': (a: ApprovalState) => ({ status: a.status === 'none' ? ('approved' as const) : a.status, disabled: false }),
} satisfies Partial<Record<ActivityType, (a: ApprovalState) => { status: ToolApproval['status']; disabled: boolean }>>

export type ToolVerb = keyof typeof actionsByType

/** One tool's approval change and its record, inside the caller's write transaction. */
export function changeToolIn(tx: Tx, id: string, type: ToolVerb, ctx: ActionContext) {
  const parsed = parseToolId(id)
  if ('malformed' in parsed) throw badRequest(`"${id}" is not a tool id: expected <server>:<tool>`)
  const { server, tool } = parsed
  const known = knownTool(tx, server, tool)
  if (!known) throw notFoundError(`no tool "${parsed.id}" is known to toolgate`)
  const row = known.approval
  const before: ApprovalState = row ? { status: row.status, disabled: row.disabled } : { status: 'none', disabled: false }
  const after = actionsByType[type](before)
  const now = Date.now()
  // approving accepts the current definition: its pin becomes the approved one and the
  // kept "previous" definition goes
  const approving = type === 'tool.approved'
  const previous = approving ? null : known.previous
  const approvedHash = approving ? known.hash : row ? known.approvedHash : known.hash
  const values = { ...after, previous, approvedHash, decidedBy: ctx.actor, decidedAt: now }
  tx.insert(toolApprovals)
    .values({ serverName: server, toolName: tool, ...values })
    .onConflictDoUpdate({ target: [toolApprovals.serverName, toolApprovals.toolName], set: values })
    .run()
  return { id: parsed.id, before, after, ...recordChange(tx, type, ctx, { target: parsed.id, before, after }, { server, now }) }
}

const changeTool = (db: Db, id: string, type: ToolVerb, ctx: ActionContext) => writeTransaction(db, (tx) => changeToolIn(tx, id, type, ctx))
export const approveTool = (db: Db, id: string, ctx: ActionContext) => changeTool(db, id, 'tool.approved', ctx)
export const blockTool = (db: Db, id: string, ctx: ActionContext) => changeTool(db, id, 'tool.blocked', ctx)
export const enableTool = (db: Db, id: string, ctx: ActionContext) => changeTool(db, id, 'tool.enabled', ctx)
