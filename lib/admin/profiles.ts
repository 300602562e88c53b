import { eq } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client'
import { writeTransaction } from '../../db/write'
import { profiles } from '../../db/schema'
import { badRequest, notFoundError } from '../errors'
import { recordChange } from './record-change'
import type { ActionContext } from './tools'

const dedupe = (names: readonly string[]) => [...new Set(names)]

/** Create a profile: a named set of servers that can only narrow a scope. */
export function createProfile(db: Db, name: string, servers: readonly string[], ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    if (tx.select({ n: profiles.name }).from(profiles).where(eq(profiles.name, name)).get()) {
      throw badRequest(`a profile named "${name}" already exists: edit it instead`)
    }
    const after = { servers: dedupe(servers) }
    tx.insert(profiles).values({ name, ...after }).run()
    return { name, ...recordChange(tx, 'profile.created', ctx, { target: name, before: null, after }) }
  })
}

/** Replace a profile's servers. */
export function updateProfile(db: Db, name: string, servers: readonly string[], ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const before = tx.select({ servers: profiles.servers }).from(profiles).where(eq(profiles.name, name)).get()
    if (!before) throw notFoundError(`no profile named "${name}"`)
    const after = { servers: dedupe(servers) }
    tx.update(profiles).set(after).where(eq(profiles.name, name)).run()
    return { name, ...recordChange(tx, 'profile.updated', ctx, { target: name, before, after }) }
  })
}

/** Delete a profile. Tokens pinned to it are then denied everything (contract §5), by design. */
export function deleteProfile(db: Db, name: string, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const before = tx.select({ servers: profiles.servers }).from(profiles).where(eq(profiles.name, name)).get()
    if (!before) throw notFoundError(`no profile named "${name}"`)
    tx.delete(profiles).where(eq(profiles.name, name)).run()
    return { name, ...recordChange(tx, 'profile.deleted', ctx, { target: name, before, after: null }) }
  })
}
