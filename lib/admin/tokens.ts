import 'server-only'
import { randomBytes } from 'node:crypto'
import type { Db, Tx } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { insertToken, profileServers, removeToken, setTokenExpiry, setTokenHash, setTokenScope, tokenByName, type TokenRow } from '@/db/queries/access'
import { hashSecret, newSecret } from '@/lib/auth/secrets'
import { badRequest, notFoundError } from '@/lib/core/errors'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { mintRequestId } from '@/lib/activity/request-id'
import type { TokenScope } from '@/lib/schemas/admin'

/** A new token's id: who it is for good (a name can be taken again once its token is revoked). */
export const newTokenId = () => `tok_${randomBytes(12).toString('hex')}`

/** A token's scope before a change, or the not-found error. */
function scopeOf(row: TokenRow | undefined, name: string): TokenScope {
  if (!row) throw notFoundError(`no token named "${name}"`)
  return { allowedServers: row.allowedServers, profilePin: row.profilePin }
}

/** A pin must name a profile that exists now (a later deletion is what makes a pin deny-all). */
function assertProfile(tx: Tx, pin: string | null) {
  if (pin !== null && profileServers(tx, pin) === undefined) {
    throw badRequest(`no profile "${pin}" exists: create it first or choose another pin`)
  }
}

/** An expiry as the record shows it. */
const expiryOf = (expiresAt: number | null) => ({ expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString() })

/** Set or clear a token's expiry and record the change (nothing, when it is already so). */
function changeExpiry(tx: Tx, name: string, before: number | null, expiresAt: number | null, ctx: ActionContext) {
  if (before === expiresAt) return undefined
  setTokenExpiry(tx, name, expiresAt)
  return recordChange(tx, 'token.expiry_changed', ctx, { target: name, before: expiryOf(before), after: expiryOf(expiresAt) })
}

/**
 * Create an agent token, optionally expiring at `expiresAt` (ms; null = never). The secret is
 * returned once and only its hash is stored.
 */
export function createAgentToken(db: Db, name: string, scope: TokenScope, ctx: ActionContext, expiresAt: number | null = null) {
  return writeTransaction(db, (tx: Tx) => {
    if (tokenByName(tx, name)) {
      throw badRequest(`a token named "${name}" already exists: pick another name or revoke it first`)
    }
    assertProfile(tx, scope.profilePin)
    const token = newSecret('tg_at_')
    const now = Date.now()
    insertToken(tx, { name, id: newTokenId(), tokenHash: hashSecret(token), ...scope, createdAt: now, expiresAt })
    return { name, token, ...recordChange(tx, 'token.created', ctx, { target: name, before: null, after: { ...scope, ...expiryOf(expiresAt) } }, { now }) }
  })
}

/**
 * Set (ms) or clear (null: never expires) a token's expiry. Setting the expiry it has already
 * changes nothing, so nothing is recorded: `changed` is false and activityId and requestId are
 * null (the log holds changes; saving the form twice is not one).
 */
export function setAgentTokenExpiry(db: Db, name: string, expiresAt: number | null, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const row = tokenByName(tx, name)
    scopeOf(row, name)
    const before = expiryOf(row!.expiresAt)
    const recorded = changeExpiry(tx, name, row!.expiresAt, expiresAt, ctx)
    return { name, before, after: expiryOf(expiresAt), changed: recorded !== undefined, activityId: recorded?.activityId ?? null, requestId: recorded?.requestId ?? null }
  })
}

/** Change a token's scope: allowed servers and profile pin. */
export function updateAgentToken(db: Db, name: string, scope: TokenScope, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const before = scopeOf(tokenByName(tx, name), name)
    assertProfile(tx, scope.profilePin)
    const now = Date.now()
    setTokenScope(tx, name, scope)
    return { name, before, after: scope, ...recordChange(tx, 'token.updated', ctx, { target: name, before, after: scope }, { now }) }
  })
}

/**
 * Rotate a token: a new secret for the same token, so its id (what tasks and held calls belong
 * to), name, scope and expiry stay — unless `expiresAt` is given (ms, or null: never), which
 * sets the expiry in the same change. The old secret stops working at once; the new one is
 * returned once.
 */
export function rotateAgentToken(db: Db, name: string, ctx: ActionContext, expiresAt?: number | null) {
  return writeTransaction(db, (tx: Tx) => {
    const row = tokenByName(tx, name)
    scopeOf(row, name)
    const token = newSecret('tg_at_')
    setTokenHash(tx, name, hashSecret(token))
    // the rotation and the expiry it sets are one change: one request id on both records
    const one = { ...ctx, requestId: ctx.requestId ?? mintRequestId(Date.now()) }
    if (expiresAt !== undefined) changeExpiry(tx, name, row!.expiresAt, expiresAt, one)
    return { name, token, ...recordChange(tx, 'token.rotated', one, { target: name, before: null, after: null }) }
  })
}

/** Revoke (delete) a token: its secret stops working at once on every surface. */
export function revokeAgentToken(db: Db, name: string, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const before = scopeOf(tokenByName(tx, name), name)
    removeToken(tx, name)
    return { name, ...recordChange(tx, 'token.revoked', ctx, { target: name, before, after: null }) }
  })
}
