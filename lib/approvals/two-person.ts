import 'server-only'
import type { Db, Tx } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { readSettings } from '@/db/queries/settings'
import { knownTool } from '@/db/queries/tools'
import { deletePendingApproval, deletePendingApprovalsBy, pendingApproval, pendingApprovalsOf, putPendingApproval } from '@/db/queries/operators'
import { listActivity } from '@/db/queries/activity'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { forbidden } from '@/lib/core/errors'

/**
 * The two-person rule (settings.two_person_rule): approving a tool definition, releasing a
 * server or approving a held call that the rule covers needs two different approvers. The first
 * approval is kept (pending_approvals) and recorded (approval.first_of_two): "1 of 2". The
 * second must come from someone else — and not from whoever requested it (adding a server
 * requests its release) — for exactly the same subject (the same pins); then the change runs.
 * `destructive` covers what may destroy: a tool that does not declare itself read-only and
 * does not declare destructiveHint false (MCP's defaults), a server with such a tool, a call of one.
 */
export type ApprovalKind = 'tool' | 'definition' | 'release' | 'call'

export interface Approval { kind: ApprovalKind; target: string; subject: string; destructive: boolean; requester?: string }

export type Gate = { proceed: true } | { proceed: false; firstOfTwo: { by: string; target: string } }

/** A tool as MCP's hints describe it: destructive unless read-only or destructiveHint false. */
export function isDestructive(db: Db, toolId: string): boolean {
  const i = toolId.indexOf(':')
  const t = knownTool(db, toolId.slice(0, i), toolId.slice(i + 1))
  const a = (t?.annotations ?? {}) as { readOnlyHint?: boolean; destructiveHint?: boolean }
  return a.readOnlyHint !== true && a.destructiveHint !== false
}

/** Who asked for a server's release: whoever added it. */
export function releaseRequester(db: Db, server: string): string | undefined {
  return listActivity(db, { server, type: 'server.added', limit: 1 })[0]?.actor
}

const identity = (ctx: ActionContext) => ctx.operatorId || ctx.actor

/** Decide whether this approval runs now (the rule does not cover it, or it is the second), or is the first of two (kept, on the record). */
export async function twoPersonGate(db: Db, a: Approval, ctx: ActionContext): Promise<Gate> {
  const rule = readSettings(db).twoPersonRule
  if (rule === 'off' || (rule === 'destructive' && !a.destructive)) return { proceed: true }
  return writeTransaction(db, (tx): Gate => {
    const first = pendingApproval(tx, a.kind, a.target)
    if (first && first.subject === a.subject) {
      if (first.operatorId === identity(ctx)) throw forbidden(`two-person rule: you already approved ${a.target} (1 of 2): another approver must make the second approval`)
      if (a.requester && a.requester === ctx.actor) throw forbidden(`two-person rule: you requested ${a.target} (you added it), so you cannot be its second approver`)
      deletePendingApproval(tx, a.kind, a.target)
      return { proceed: true }
    }
    // a first approval (or one of a changed subject: what was approved before is not what is shown now)
    putPendingApproval(tx, { kind: a.kind, target: a.target, subject: a.subject, operatorId: identity(ctx), actor: ctx.actor, at: Date.now() })
    recordChange(tx, 'approval.first_of_two', ctx, { target: a.target, before: null, after: { kind: a.kind, subject: a.subject } })
    return { proceed: false, firstOfTwo: { by: ctx.actor, target: a.target } }
  })
}

/** A person who can no longer approve (removed, disabled): their first approvals stop counting, each on the record, so nobody completes one on their strength. */
export function withdrawFirstApprovalsOf(tx: Tx, operatorId: string, reason: string, ctx: ActionContext): void {
  for (const p of deletePendingApprovalsBy(tx, operatorId)) {
    recordChange(tx, 'approval.withdrawn', ctx, { target: p.target, before: { kind: p.kind as ApprovalKind, subject: p.subject, by: p.actor }, after: null, reason })
  }
}

/** The first approvals waiting for a second, by target: what the dashboard shows as "1 of 2". */
export function firstApprovals(db: Db, kind: ApprovalKind): Record<string, { by: string; at: string }> {
  return Object.fromEntries(pendingApprovalsOf(db, kind).map((p) => [p.target, { by: p.actor, at: new Date(p.at).toISOString() }]))
}
