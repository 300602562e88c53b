import 'server-only'
import type { Db, Tx } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { insertProfile, profileServers, removeProfile, setProfileServers } from '@/db/queries/access'
import { badRequest, notFoundError } from '@/lib/core/errors'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'

const dedupe = (names: readonly string[]) => [...new Set(names)]

/** Create a profile: a named set of servers that can only narrow a scope. */
export function createProfile(db: Db, name: string, servers: readonly string[], ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    if (profileServers(tx, name) !== undefined) {
      throw badRequest(`a profile named "${name}" already exists: edit it instead`)
    }
    const after = { servers: dedupe(servers) }
    insertProfile(tx, name, after.servers)
    return { name, ...recordChange(tx, 'profile.created', ctx, { target: name, before: null, after }) }
  })
}

/** Replace a profile's servers. */
export function updateProfile(db: Db, name: string, servers: readonly string[], ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const current = profileServers(tx, name)
    if (!current) throw notFoundError(`no profile named "${name}"`)
    const before = { servers: current }
    const after = { servers: dedupe(servers) }
    setProfileServers(tx, name, after.servers)
    return { name, ...recordChange(tx, 'profile.updated', ctx, { target: name, before, after }) }
  })
}

/** Delete a profile. Tokens pinned to it are then denied everything (contract §5), by design. */
export function deleteProfile(db: Db, name: string, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const current = profileServers(tx, name)
    if (!current) throw notFoundError(`no profile named "${name}"`)
    const before = { servers: current }
    removeProfile(tx, name)
    return { name, ...recordChange(tx, 'profile.deleted', ctx, { target: name, before, after: null }) }
  })
}
