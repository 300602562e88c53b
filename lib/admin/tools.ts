import 'server-only'
import type { Db, Tx } from '@/db/client'
import type { ToolApproval } from '@/db/schema'
import { knownTool, saveApproval, type KnownTool } from '@/db/queries/tools'
import { serverBaselined } from '@/db/queries/servers'
import { writeTransaction } from '@/db/write'
import type { ActivityType } from '@/lib/core/activity'
import { badRequest, notFoundError } from '@/lib/core/errors'
import { parseToolId } from '@/lib/preflight/ids'
import { HASH_SCHEMA_VERSION, isPin } from '@/lib/preflight/hash'
import { approvedOf } from '@/lib/core/definition'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { mintRequestId } from '@/lib/activity/request-id'
import { crossings, recordCrossings, requireConfirmation } from '@/lib/surface/ceiling'

type ApprovalState = { status: ToolApproval['status'] | 'none'; disabled: boolean }

// no record: implicitly approved where the server has a baseline (a state file's tools, its first
// discovery); a tool only ever inspected was never approved, and a block or unblock leaves it pending
const undecided = (a: ApprovalState, baselined: boolean) => (a.status !== 'none' ? a.status : baselined ? 'approved' as const : 'pending' as const)
const actionsByType = {
  'tool.approved': (a: ApprovalState) => ({ status: 'approved' as const, disabled: a.disabled }),
  'tool.blocked': (a: ApprovalState, baselined: boolean) => ({ status: undecided(a, baselined), disabled: true }),
  'tool.enabled': (a: ApprovalState, baselined: boolean) => ({ status: undecided(a, baselined), disabled: false }),
} satisfies Partial<Record<ActivityType, (a: ApprovalState, baselined: boolean) => { status: ToolApproval['status']; disabled: boolean }>>

export type ToolVerb = keyof typeof actionsByType

/** What the operator saw and agreed to, when the change needs it. */
export interface ToolChangeOptions {
  /** approve: the pin of the definition the operator was shown; refused if it changed since */
  hash?: string
  /** unblocking a tool annotated destructive, or approving one that crosses the overlap ceiling, needs an explicit confirmation */
  confirm?: boolean
}

/** One tool's approval change and its record, inside the caller's write transaction. */
export function changeToolIn(tx: Tx, id: string, type: ToolVerb, ctx: ActionContext, opts: ToolChangeOptions = {}) {
  const parsed = parseToolId(id)
  if ('malformed' in parsed) throw badRequest(`"${id}" is not a tool id: expected <server>:<tool>`)
  const { server, tool } = parsed
  const known = knownTool(tx, server, tool)
  if (!known) throw notFoundError(`no tool "${parsed.id}" is known to toolgate`)
  if (type === 'tool.approved' && opts.hash !== undefined && !isPin(opts.hash)) {
    throw badRequest(`"${opts.hash}" is not a pin: a pin is sha256/v${HASH_SCHEMA_VERSION}:<64 hex digits>, as \`toolgate tools show ${parsed.id}\` prints it`)
  }
  if (type === 'tool.approved' && opts.hash !== undefined && opts.hash !== known.hash) {
    throw badRequest(`the definition of ${parsed.id} changed since it was shown (shown ${opts.hash}, now ${known.hash}): review it again, then approve`)
  }
  const row = known.approval
  if (type === 'tool.enabled' && row?.disabled && known.annotations?.destructiveHint === true && !opts.confirm) {
    throw badRequest(`${parsed.id} is annotated destructive and was blocked by an operator: confirm to unblock it (--yes)`)
  }
  const before: ApprovalState = row ? { status: row.status, disabled: row.disabled } : { status: 'none', disabled: false }
  const baselined = row !== null || serverBaselined(tx, server)
  const after = actionsByType[type](before, baselined)
  const now = Date.now()
  // approving accepts the definition the server offers now (the one shown): it becomes the
  // approved one, and is what agents are served; a block or unblock keeps what was approved
  // (without a record, the tool as it stands was implicitly approved — if its server has a baseline)
  const approving = type === 'tool.approved' || (!row && baselined)
  const approved = approving ? approvedOf(known) : known.approved
  const approvedHash = approving ? known.hash : known.approvedHash
  saveApproval(tx, server, tool, { ...after, approved, approvedHash, decidedBy: ctx.actor, decidedAt: now })
  const note = type === 'tool.approved' ? `approved pin ${known.hash}` : undefined
  return { id: parsed.id, before, after, pin: known.hash, ...recordChange(tx, type, ctx, { target: parsed.id, before, after, ...(note ? { note } : {}) }, { server, now }) }
}

/** The tools an approval would start serving: known, not yet approved, not blocked. */
function newlyServed(db: Db, ids: readonly string[]): KnownTool[] {
  return ids.flatMap((id) => {
    const p = parseToolId(id)
    const t = 'malformed' in p ? undefined : knownTool(db, p.server, p.tool)
    return t && t.approval?.status !== 'approved' && !t.approval?.disabled ? [t] : []
  })
}

/**
 * Change many tools as ONE transaction: all of them change, or none does. Approving serves a
 * definition, so it first checks the description-overlap ceiling: a pair it would bring over
 * it needs `confirm`, and a confirmed crossing is recorded with the change.
 */
export async function changeToolsIn(db: Db, type: ToolVerb, ids: readonly string[], ctx: ActionContext, opts: { hashes?: Readonly<Record<string, string>>; confirm?: boolean } = {}) {
  const found = type === 'tool.approved' ? crossings(db, newlyServed(db, ids)) : []
  requireConfirmation(found, `approving ${ids.join(', ')}`, opts.confirm)
  // one batch is one request: every tool's record, and the crossings', under one request id
  const one = { ...ctx, requestId: ctx.requestId ?? mintRequestId(Date.now()) }
  return writeTransaction(db, (tx) => {
    const changed = ids.map((id) => changeToolIn(tx, id, type, one, { hash: opts.hashes?.[id], confirm: opts.confirm }))
    recordCrossings(tx, found, one, `approved ${ids.join(', ')}`)
    return changed
  })
}

const changeTool = async (db: Db, id: string, type: ToolVerb, ctx: ActionContext, opts: ToolChangeOptions = {}) =>
  (await changeToolsIn(db, type, [id], ctx, { hashes: opts.hash === undefined ? undefined : { [id]: opts.hash }, confirm: opts.confirm }))[0]
export const approveTool = (db: Db, id: string, ctx: ActionContext, opts?: ToolChangeOptions) => changeTool(db, id, 'tool.approved', ctx, opts)
export const blockTool = (db: Db, id: string, ctx: ActionContext) => changeTool(db, id, 'tool.blocked', ctx)
export const enableTool = (db: Db, id: string, ctx: ActionContext, opts?: { confirm?: boolean }) => changeTool(db, id, 'tool.enabled', ctx, opts)
