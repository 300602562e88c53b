import 'server-only'
import type { z } from 'zod'
import type { Db } from '@/db/client'
import type { Operator } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import {
  deletePersonalToken, deleteTokensNotIn, endCredentialsOf, insertInvitation, insertOperator, insertPersonalToken, invitationByHash,
  operatorById, operatorByLogin, operatorList, personalTokenById, personalTokenList, updateOperator, useInvitation,
} from '@/db/queries/operators'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { withdrawFirstApprovalsOf } from '@/lib/approvals/two-person'
import { badRequest, forbidden, notFoundError } from '@/lib/core/errors'
import { formatIssues } from '@/lib/schemas/issues'
import type { OperatorState } from '@/lib/core/activity'
import { newOperatorId } from '@/lib/auth/accounts'
import { MIN_PASSWORD_LENGTH, newOperatorSchema, personalTokenSchema, roleSchema, type NewOperator, type NewPersonalToken } from '@/lib/schemas/operators'
import { hashPassword } from '@/lib/auth/passwords'
import { atMost, can, ROLES, type Principal, type Role } from '@/lib/auth/roles'
import { hashSecret, newSecret } from '@/lib/auth/secrets'
import { LOCAL_ACCOUNTS_OFF, openSession, type SessionOrigin, type SignInResult } from '@/lib/auth/operator-sessions'
import { readSettings } from '@/db/queries/settings'

/** An account as the log, the CLI and the state file show it: never a password hash. */
export const presentOperator = (o: Operator): OperatorState => ({ username: o.username, name: o.name, email: o.email, role: o.role, enabled: o.enabled })

export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const p = schema.safeParse(raw)
  if (!p.success) throw badRequest(formatIssues(p.error))
  return p.data
}

export function requireOperator(db: Db, username: string): Operator {
  const o = operatorByLogin(db, username)
  if (!o) throw notFoundError(`no operator "${username}" (toolgate operators list shows them)`)
  return o
}

function taken(db: Db, u: { username: string; email: string | null }): void {
  if (operatorByLogin(db, u.username)) throw badRequest(`username: "${u.username}" is taken`)
  if (u.email && operatorByLogin(db, u.email)) throw badRequest(`email: ${u.email} already belongs to an account`)
}

/** Everyone, for the Operators page and `toolgate operators list`. */
export const listOperators = (db: Db) => operatorList(db).map((o) => ({ ...presentOperator(o), id: o.id, source: o.source, createdAt: o.createdAt, hasPassword: o.passwordHash !== null }))

/** A local account with a password (the CLI: filesystem access is the boundary there). */
export async function addOperator(db: Db, raw: NewOperator & { password: string }, ctx: ActionContext, now = Date.now()) {
  const { password, ...rest } = raw
  const u = parse(newOperatorSchema, rest)
  if (password.length < MIN_PASSWORD_LENGTH) throw badRequest(`password: use at least ${MIN_PASSWORD_LENGTH} characters`)
  const passwordHash = await hashPassword(password)
  return writeTransaction(db, (tx) => {
    taken(db, u)
    const row: Operator = { id: newOperatorId(), ...u, enabled: true, passwordHash, source: 'local', oidcSubject: null, createdAt: now }
    insertOperator(tx, row)
    return { operator: presentOperator(row), ...recordChange(tx, 'operator.created', ctx, { target: u.username, before: null, after: presentOperator(row) }, { now }) }
  })
}

/**
 * Invite a person: their account (enabled, no password yet) and a link that works once and
 * expires (INVITATION_TTL_MS). Only the link's hash is kept: the link is in this answer only.
 */
export async function inviteOperator(db: Db, raw: NewOperator, ctx: ActionContext, now = Date.now(), ttlMs = INVITATION_TTL_MS) {
  const u = parse(newOperatorSchema, raw)
  const token = newSecret('tg_iv_')
  const expiresAt = now + ttlMs
  return writeTransaction(db, (tx) => {
    taken(db, u)
    const row: Operator = { id: newOperatorId(), ...u, enabled: true, passwordHash: null, source: 'local', oidcSubject: null, createdAt: now }
    insertOperator(tx, row)
    insertInvitation(tx, { tokenHash: hashSecret(token), operatorId: row.id, createdBy: ctx.actor, createdAt: now, expiresAt })
    const record = recordChange(tx, 'operator.invited', ctx, { target: u.username, before: null, after: presentOperator(row), expires_at: new Date(expiresAt).toISOString() }, { now })
    return { operator: presentOperator(row), token, path: `/invite/${token}`, expiresAt, ...record }
  })
}

/**
 * Use an invitation: set the password and open a session. Used, expired or unknown links are
 * refused alike, before any password work; the link is marked used in the same transaction
 * that sets the password, so two tabs racing cannot both use it.
 */
export async function acceptInvitation(db: Db, token: string, password: string, origin: SessionOrigin, now = Date.now()): Promise<SignInResult> {
  const refused = { refused: 'This invitation link was already used, has expired, or is not one toolgate made.', fix: 'Ask an admin for a new invitation.' }
  const tokenHash = hashSecret(token)
  const inv = invitationByHash(db, tokenHash)
  if (!inv || inv.usedAt !== null || inv.expiresAt <= now) return refused
  if (!readSettings(db).localAccounts) return LOCAL_ACCOUNTS_OFF
  const passwordHash = await hashPassword(password)
  const operator = await writeTransaction(db, (tx) => {
    if (!useInvitation(tx, tokenHash, now)) return undefined
    const o = operatorById(tx, inv.operatorId)
    if (!o || !o.enabled) return undefined
    updateOperator(tx, o.id, { passwordHash })
    recordChange(tx, 'operator.invitation_accepted', { actor: o.username, operatorId: o.id, auth: 'session' }, { target: o.username, before: null, after: presentOperator(o) }, { now })
    return o
  })
  return operator ? openSession(db, operator, 'password', origin, now) : refused
}

/**
 * Change a person's role or turn their account on or off, on the record. Disabling ends their
 * sessions and tokens at once; a lowered role ends the tokens that carried more. Nobody
 * changes their own account (an admin cannot lock the last admin out by accident), and the
 * last enabled admin stays.
 */
export async function changeOperator(db: Db, username: string, change: { role?: Role; enabled?: boolean }, by: ActionContext & { operatorId?: string }) {
  if (change.role !== undefined) parse(roleSchema, change.role)
  return writeTransaction(db, (tx) => {
    const o = requireOperator(db, username)
    if (by.operatorId === o.id) throw forbidden('you cannot change your own role or account: ask another admin')
    const admins = operatorList(tx).filter((x) => x.enabled && x.role === 'admin' && x.id !== o.id)
    const staysAdmin = (change.enabled ?? o.enabled) && (change.role ?? o.role) === 'admin'
    if (o.role === 'admin' && o.enabled && !staysAdmin && admins.length === 0) throw badRequest(`${username} is the last enabled admin: make someone else admin first`)
    const before = presentOperator(o)
    updateOperator(tx, o.id, { ...(change.role !== undefined ? { role: change.role } : {}), ...(change.enabled !== undefined ? { enabled: change.enabled } : {}) })
    const after = { ...before, ...change }
    let ended = { sessions: 0, tokens: 0 }
    if (change.enabled === false) ended = endCredentialsOf(tx, o.id)
    else if (change.role !== undefined) ended.tokens = deleteTokensNotIn(tx, o.id, ROLES.filter((r) => atMost(r, change.role!)))
    const [enabled, role] = [change.enabled ?? o.enabled, change.role ?? roleSchema.parse(o.role)]
    if (!enabled || !can(role, 'approve')) withdrawFirstApprovalsOf(tx, o.id, enabled ? `${by.actor} made ${username} ${role}` : `${by.actor} disabled ${username}`, by)
    const record = recordChange(tx, 'operator.changed', by, { target: username, before, after, ...(ended.sessions ? { sessions_ended: ended.sessions } : {}), ...(ended.tokens ? { tokens_revoked: ended.tokens } : {}) })
    return { before, after, ...ended, ...record }
  })
}

// ---- personal access tokens

/** A personal access token for `by` (tg_pt_…): at most their role, with an expiry; the secret is in this answer only. */
export async function createPersonalToken(db: Db, by: Principal, raw: NewPersonalToken, now = Date.now()) {
  const t = parse(personalTokenSchema, raw)
  const role = t.role ?? by.role
  if (!atMost(role, by.role)) throw forbidden(`a token carries at most your own role (${by.role}), not ${role}`)
  if (by.auth === 'token') throw forbidden('a personal token cannot make another: sign in to the dashboard')
  const token = newSecret('tg_pt_')
  const expiresAt = now + t.days * 24 * 60 * 60 * 1000
  const id = `pt_${newSecret('').slice(0, 16)}`
  return writeTransaction(db, (tx) => {
    insertPersonalToken(tx, { id, operatorId: by.operatorId, name: t.name, tokenHash: hashSecret(token), role, createdAt: now, expiresAt })
    const after = { name: t.name, role, expires_at: new Date(expiresAt).toISOString() }
    return { id, token, ...after, ...recordChange(tx, 'personal_token.created', { actor: by.actor, operatorId: by.operatorId, auth: by.auth }, { target: `${by.username}/${id}`, before: null, after }, { now }) }
  })
}

export const listPersonalTokens = (db: Db, by: Principal) => personalTokenList(db, can(by.role, 'admin') ? undefined : by.operatorId)

/** Revoke a token: a person their own, an admin anyone's. Refused at once everywhere (the next request finds no row). */
export async function revokePersonalToken(db: Db, by: Principal, id: string) {
  return writeTransaction(db, (tx) => {
    const t = personalTokenById(tx, id)
    if (!t) throw notFoundError(`no personal token ${id}`)
    if (t.operatorId !== by.operatorId && !can(by.role, 'admin')) throw forbidden('only an admin revokes another person\'s token')
    deletePersonalToken(tx, id)
    const before = { name: t.name, role: t.role, expires_at: new Date(t.expiresAt).toISOString() }
    return { id, ...recordChange(tx, 'personal_token.revoked', { actor: by.actor, operatorId: by.operatorId, auth: by.auth }, { target: id, before, after: null }) }
  })
}
