import 'server-only'
import type { Db, Tx } from '@/db/client'
import { knownTools, reviewContext, saveApproval } from '@/db/queries/tools'
import { decideDefinition, knownDefinitions } from '@/db/queries/definitions'
import { requireServer, updateServer } from '@/db/queries/servers'
import { definitionId } from '@/lib/approvals/server-definitions'
import { writeTransaction } from '@/db/write'
import { badRequest } from '@/lib/core/errors'
import { mintRequestId } from '@/lib/activity/request-id'
import { approvedOf, definitionOf } from '@/lib/core/definition'
import { holdDefinition, holdToApproval } from '@/lib/upstream/discovery'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { crossings, recordCrossings, requireConfirmation, type Crossing } from '@/lib/surface/ceiling'

const changes = {
  'server.enabled': { enabled: true },
  'server.disabled': { enabled: false },
  'server.quarantined': { quarantined: true },
  'server.unquarantined': { quarantined: false },
} as const

function changeServer(db: Db, name: string, type: keyof typeof changes, ctx: ActionContext, during?: (tx: Tx, now: number, before: { enabled: boolean; quarantined: boolean }, requestId: string) => string | undefined) {
  return writeTransaction(db, (tx: Tx) => {
    const { enabled, quarantined } = requireServer(tx, name)
    const row = { enabled, quarantined }
    const now = Date.now()
    // what the change causes (a release's approvals and findings) is on the record under the same request
    const requestId = ctx.requestId ?? mintRequestId(now)
    const after = { ...row, ...changes[type] }
    // enabling asks the runtime to connect, as a restart does: what follows it waits for that (restartLanded)
    updateServer(tx, name, { ...changes[type], ...(type === 'server.enabled' ? { restartRequestedAt: now } : {}), updatedAt: now })
    const note = during?.(tx, now, row, requestId)
    return { name, before: row, after, note, ...recordChange(tx, type, { ...ctx, requestId }, { target: name, before: row, after, ...(note ? { note } : {}) }, { server: name, now }) }
  })
}

export const enableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.enabled', ctx)
export const disableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.disabled', ctx)
export const quarantineServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.quarantined', ctx)

/** What releasing would bring over the overlap ceiling: it serves what it approves, and what was approved before. */
export function releaseCrossings(db: Db, name: string, shown?: Record<string, string>): Crossing[] {
  if (!requireServer(db, name).quarantined) return []
  return crossings(db, knownTools(db, name).filter((t) => t.approval ? t.approval.status === 'approved' && !t.approval.disabled : shown === undefined || shown[t.name] === t.hash))
}

/**
 * Release a quarantined server, approving exactly the definitions the operator was shown:
 * `shown` maps tool names to the pins on screen (the dashboard's review); without it, the
 * definitions as they stand now (what `tools list --server` shows). A known tool whose pin no
 * longer matches what was shown stays pending; a tool decided before is checked against its
 * approval (one whose definition moved is changed, on the record); tools that appear or change
 * after the release arrive pending or changed, because the release sets the server's baseline.
 */

export function unquarantineServer(db: Db, name: string, ctx: ActionContext, shown?: Record<string, string>, opts: { confirm?: boolean; shownDefinitions?: Record<string, string> } = {}) {
  const found = releaseCrossings(db, name, shown)
  requireConfirmation(found, `releasing ${name}`, opts.confirm)
  return changeServer(db, name, 'server.unquarantined', ctx, (tx, now, before, requestId) => {
    recordCrossings(tx, found, { ...ctx, requestId }, `released ${name}`)
    if (!before.quarantined) return undefined // already released: nothing to approve
    const approved: string[] = []
    const pending: string[] = []
    const changed: string[] = []
    const server = requireServer(tx, name)
    const context = reviewContext(tx, name)
    for (const t of knownTools(tx, name)) {
      if (t.approval) {
        // decided before (a state file's record, an earlier review): held to that decision, so
        // a definition that moved from the approved one is changed, never released as approved
        if (t.approval.status === 'approved' && t.approvedHash !== t.hash && t.hash !== null) {
          holdToApproval(tx, { server, definition: definitionOf(t), hash: t.hash, approval: { status: 'approved', approved: t.approved, approvedHash: t.approvedHash }, actor: ctx.actor, requestId, now, context, note: 'found at release' })
          changed.push(t.name)
        }
        continue
      }
      const seen = shown === undefined ? t.hash : shown[t.name]
      const ok = seen !== undefined && seen === t.hash
      saveApproval(tx, name, t.name, {
        status: ok ? 'approved' : 'pending', disabled: false, approvedHash: ok ? t.hash : null, approved: ok ? approvedOf(t) : null, decidedBy: ctx.actor, decidedAt: now,
      })
      ;(ok ? approved : pending).push(t.name)
    }
    // its instructions, prompts, resources and templates, the same way (shown: id → pin)
    for (const d of knownDefinitions(tx, { servers: [name] })) {
      const id = definitionId(name, d.kind, d.key)
      if (d.status !== null) {
        if (d.status === 'approved' && d.approvedHash !== d.hash) {
          holdDefinition(tx, d, { server, actor: ctx.actor, requestId, now, context, note: 'found at release' })
          changed.push(id)
        }
        continue
      }
      const seen = opts.shownDefinitions === undefined ? d.hash : opts.shownDefinitions[id]
      const ok = seen === d.hash
      decideDefinition(tx, d, { status: ok ? 'approved' : 'pending', approved: ok ? d.definition : null, approvedHash: ok ? d.hash : null }, ctx.actor, now)
      ;(ok ? approved : pending).push(id)
    }
    updateServer(tx, name, { baselineAt: now })
    return `approved as shown: ${approved.join(', ') || 'none'}${pending.length ? `; pending (changed since shown, or not shown): ${pending.join(', ')}` : ''}${changed.length ? `; changed since approved (review and approve each): ${changed.join(', ')}` : ''}`
  })
}

/** Ask the runtime to inspect a quarantined server (its tools listed for review, never served). */
export function requestInspection(db: Db, name: string, ctx: ActionContext) {
  return writeTransaction(db, (tx) => {
    const server = requireServer(tx, name)
    if (!server.quarantined) throw badRequest(`server "${name}" is not quarantined: its tools are already listed (toolgate tools list --server ${name})`)
    if (!server.transport) throw badRequest(`server "${name}" has no transport: its tools come from a state file and are listed already`)
    const now = Date.now()
    updateServer(tx, name, { inspectRequestedAt: now })
    return recordChange(tx, 'server.inspect_requested', ctx, { target: name, before: null, after: null }, { server: name, now })
  })
}
