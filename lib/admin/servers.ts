import { eq } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client'
import { servers } from '../../db/schema'
import { insertActivity } from '../activity/record'
import { writeTransaction } from '../../db/write'
import { mintRequestId } from '../activity/request-id'
import { notFoundError } from '../errors'
import type { ActionContext } from './tools'

const changes = {
  'server.enabled': { enabled: true },
  'server.disabled': { enabled: false },
  'server.quarantined': { quarantined: true },
  'server.unquarantined': { quarantined: false },
} as const

function changeServer(db: Db, name: string, type: keyof typeof changes, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const row = tx.select({ enabled: servers.enabled, quarantined: servers.quarantined }).from(servers).where(eq(servers.name, name)).get()
    if (!row) throw notFoundError(`no server "${name}" is configured`)
    const now = Date.now()
    const after = { ...row, ...changes[type] }
    tx.update(servers).set({ ...changes[type], updatedAt: now }).where(eq(servers.name, name)).run()
    const record = insertActivity(tx, {
      requestId: ctx.requestId ?? mintRequestId(now), type, actor: ctx.actor, server: name, at: now,
      data: { target: name, before: row, after },
    })
    return { name, before: row, after, activityId: record.id, requestId: record.requestId }
  })
}

export const enableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.enabled', ctx)
export const disableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.disabled', ctx)
export const quarantineServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.quarantined', ctx)
export const unquarantineServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.unquarantined', ctx)
