import 'server-only'
import { eq } from 'drizzle-orm'
import type { Db, Tx } from '@/db/client'
import { servers } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { requireServer } from './require'
import { recordChange } from './record-change'
import type { ActionContext } from './tools'

const changes = {
  'server.enabled': { enabled: true },
  'server.disabled': { enabled: false },
  'server.quarantined': { quarantined: true },
  'server.unquarantined': { quarantined: false },
} as const

function changeServer(db: Db, name: string, type: keyof typeof changes, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const { enabled, quarantined } = requireServer(tx, name)
    const row = { enabled, quarantined }
    const now = Date.now()
    const after = { ...row, ...changes[type] }
    tx.update(servers).set({ ...changes[type], updatedAt: now }).where(eq(servers.name, name)).run()
    return { name, before: row, after, ...recordChange(tx, type, ctx, { target: name, before: row, after }, { server: name, now }) }
  })
}

export const enableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.enabled', ctx)
export const disableServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.disabled', ctx)
export const quarantineServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.quarantined', ctx)
export const unquarantineServer = (db: Db, name: string, ctx: ActionContext) => changeServer(db, name, 'server.unquarantined', ctx)
