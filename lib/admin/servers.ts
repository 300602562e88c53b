import 'server-only'
import { eq } from 'drizzle-orm'
import type { Db, Tx } from '@/db/client'
import { knownTools } from '@/db/queries/tools'
import { servers, toolApprovals } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { badRequest } from '@/lib/errors'
import { recordChange } from './record-change'
import { requireServer } from './require'
import type { ActionContext } from './tools'
import { crossings, recordCrossings, requireConfirmation, type Crossing } from '@/lib/surface/ceiling'

const changes = {
  'server.enabled': { enabled: true },
  'server.disabled': { enabled: false },
  'server.quarantined': { quarantined: true },
  'server.unquarantined': { quarantined: false },
} as const

function changeServer(db: Db, name: string, type: keyof typeof changes, ctx: ActionContext, during?: (tx: Tx, now: number, before: { enabled: boolean; quarantined: boolean }) => string | undefined) {
  return writeTransaction(db, (tx: Tx) => {
    const { enabled, quarantined } = requireServer(tx, name)
    const row = { enabled, quarantined }
    const now = Date.now()
    const after = { ...row, ...changes[type] }
    tx.update(servers).set({ ...changes[type], updatedAt: now }).where(eq(servers.name, name)).run()
    const note = during?.(tx, now, row)
    return { name, before: row, after, note, ...recordChange(tx, type, ctx, { target: name, before: row, after, ...(note ? { note } : {}) }, { server: name, now }) }
  })
}

export const enableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.enabled', ctx)
export const disableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.disabled', ctx)
export const quarantineServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.quarantined', ctx)

/**
 * Release a quarantined server, approving exactly the definitions the operator was shown:
 * `shown` maps tool names to the pins on screen (the dashboard's review); without it, the
 * definitions as they stand now (what `tools list --server` shows). A known tool whose pin no
 * longer matches what was shown stays pending; tools that appear or change after the release
 * arrive pending or changed, because the release sets the server's baseline.
 */
/** What releasing would bring over the overlap ceiling: it serves what it approves, and what was approved before. */
export function releaseCrossings(db: Db, name: string, shown?: Record<string, string>): Crossing[] {
  if (!requireServer(db, name).quarantined) return []
  return crossings(db, knownTools(db, name).filter((t) => t.approval ? t.approval.status === 'approved' && !t.approval.disabled : shown === undefined || shown[t.name] === t.hash))
}

export function unquarantineServer(db: Db, name: string, ctx: ActionContext, shown?: Record<string, string>, opts: { confirm?: boolean } = {}) {
  const found = releaseCrossings(db, name, shown)
  requireConfirmation(found, `releasing ${name}`, opts.confirm)
  return changeServer(db, name, 'server.unquarantined', ctx, (tx, now, before) => {
    recordCrossings(tx, found, ctx, `released ${name}`)
    if (!before.quarantined) return undefined // already released: nothing to approve
    const approved: string[] = []
    const pending: string[] = []
    for (const t of knownTools(tx, name)) {
      if (t.approval) continue // decided before (a state file's record, an earlier review)
      const seen = shown === undefined ? t.hash : shown[t.name]
      const ok = seen !== undefined && seen === t.hash
      tx.insert(toolApprovals).values({
        serverName: name, toolName: t.name, status: ok ? 'approved' : 'pending', disabled: false,
        approvedHash: ok ? t.hash : null, previous: null, decidedBy: ctx.actor, decidedAt: now,
      }).run()
      ;(ok ? approved : pending).push(t.name)
    }
    tx.update(servers).set({ baselineAt: now }).where(eq(servers.name, name)).run()
    return `approved as shown: ${approved.join(', ') || 'none'}${pending.length ? `; pending (changed since shown, or not shown): ${pending.join(', ')}` : ''}`
  })
}

/** Ask the runtime to inspect a quarantined server (its tools listed for review, never served). */
export function requestInspection(db: Db, name: string, ctx: ActionContext) {
  return writeTransaction(db, (tx) => {
    const server = requireServer(tx, name)
    if (!server.quarantined) throw badRequest(`server "${name}" is not quarantined: its tools are already listed (toolgate tools list --server ${name})`)
    if (!server.transport) throw badRequest(`server "${name}" has no transport: its tools come from a state file and are listed already`)
    const now = Date.now()
    tx.update(servers).set({ inspectRequestedAt: now }).where(eq(servers.name, name)).run()
    return recordChange(tx, 'server.inspect_requested', ctx, { target: name, before: null, after: null }, { server: name, now })
  })
}
