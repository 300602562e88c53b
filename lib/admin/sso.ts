import 'server-only'
import type { Db, Tx } from '@/db/client'
import type { Operator } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { insertOperator, operatorByEmail, operatorByLogin, operatorByOidcSubject, updateOperator } from '@/db/queries/operators'
import { recordChange } from '@/lib/activity/record-change'
import { newOperatorId } from '@/lib/auth/accounts'
import { usernameSchema } from '@/lib/schemas/operators'
import type { OidcConfig, SsoIdentity, SsoRefusal } from '@/lib/auth/oidc'
import { openSession, refusedRecord, type IssuedSession, type SessionOrigin } from '@/lib/auth/operator-sessions'
import { ROLES, type Principal, type Role } from '@/lib/auth/roles'
import { presentOperator } from './operators'

/**
 * Who a single sign-on is (docs/security.md, "Single sign-on"):
 * 1. the account already linked to the identity (`iss` + `sub`), else
 * 2. the account with the identity's verified e-mail — linked to it now (recorded), unless it
 *    is linked to another identity already, else
 * 3. a new account (source `oidc`, recorded), when the identity's groups map to a role
 *    (TOOLGATE_OIDC_ROLES; the highest one wins) or TOOLGATE_OIDC_DEFAULT_ROLE is set.
 * An e-mail counts only when the provider says it is verified, and with
 * TOOLGATE_OIDC_ALLOWED_DOMAINS set, only in those domains (for every sign-in, linked or not).
 * The role mapping gives a new account its first role; after that an admin sets roles on the
 * Operators page, as for every account. A disabled account does not sign in.
 */
export function mappedRole(c: OidcConfig, groups: readonly string[]): Role | null {
  const roles = groups.map((g) => c.roleMap.get(g)).filter((r): r is Role => r !== undefined)
  if (!roles.length) return c.defaultRole
  return ROLES[Math.max(...roles.map((r) => ROLES.indexOf(r)))]
}

/** A free username for a new SSO account: the preferred username or the e-mail's local part, made valid, with a number if taken. */
function freeUsername(tx: Tx, id: SsoIdentity): string {
  const wanted = (id.preferredUsername ?? id.email!.split('@')[0]).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 56) || 'sso-user'
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? wanted : `${wanted}-${n}`
    if (usernameSchema.safeParse(candidate).success && !operatorByLogin(tx, candidate)) return candidate
  }
}

type Decision = { operator: Operator } | { refused: SsoRefusal; detail: string }

function decide(tx: Tx, c: OidcConfig, id: SsoIdentity, now: number): Decision {
  const email = id.emailVerified ? id.email : null
  const linked = operatorByOidcSubject(tx, id.subject)
  if (c.allowedDomains.length && !(email && c.allowedDomains.includes(email.split('@')[1]))) {
    return email ? { refused: 'domain', detail: email } : { refused: 'unverified', detail: 'no verified e-mail to check against TOOLGATE_OIDC_ALLOWED_DOMAINS' }
  }
  if (linked) return linked.enabled ? { operator: linked } : { refused: 'disabled', detail: linked.username }
  if (!email) return { refused: 'unverified', detail: id.email ? `${id.email} is not verified` : 'no e-mail claim' }
  const byEmail = operatorByEmail(tx, email)
  const ctx = (o: Operator) => ({ actor: o.username, operatorId: o.id, auth: 'oidc' })
  if (byEmail) {
    if (byEmail.oidcSubject) return { refused: 'linked_elsewhere', detail: `${byEmail.username} is linked to ${byEmail.oidcSubject}` }
    if (!byEmail.enabled) return { refused: 'disabled', detail: byEmail.username }
    updateOperator(tx, byEmail.id, { oidcSubject: id.subject })
    recordChange(tx, 'operator.sso_linked', ctx(byEmail), { target: byEmail.username, before: null, after: { subject: id.subject, email } }, { now })
    return { operator: { ...byEmail, oidcSubject: id.subject } }
  }
  const role = mappedRole(c, id.groups)
  if (!role) return { refused: 'unmapped', detail: `${email}; groups: ${id.groups.join(', ') || '(none)'}` }
  const username = freeUsername(tx, id)
  const row: Operator = { id: newOperatorId(), username, name: id.name?.trim().slice(0, 120) || username, email, role, enabled: true, passwordHash: null, source: 'oidc', oidcSubject: id.subject, createdAt: now }
  insertOperator(tx, row)
  recordChange(tx, 'operator.created', ctx(row), { target: username, before: null, after: presentOperator(row), note: `first single sign-on; groups: ${id.groups.join(', ') || '(none)'}` }, { now })
  return { operator: row }
}

export type SsoSignIn = { session: IssuedSession; principal: Principal } | { refused: SsoRefusal }

/** Sign in the person the provider vouched for (see above), or record and say why not. */
export async function signInWithSso(db: Db, c: OidcConfig, id: SsoIdentity, origin: SessionOrigin = {}, now = Date.now()): Promise<SsoSignIn> {
  const d = await writeTransaction(db, (tx) => decide(tx, c, id, now))
  if ('refused' in d) {
    await refusedOidc(db, d.refused, d.detail, origin, id.email ?? undefined, now)
    return { refused: d.refused }
  }
  return openSession(db, d.operator, 'oidc', origin, now)
}

/** The record of a refused single sign-on: the rule and its detail, never a token. */
export const refusedOidc = (db: Db, sso: SsoRefusal, detail: string, origin: SessionOrigin, login?: string, now = Date.now()) =>
  refusedRecord(db, now, { address: origin.address || 'an unknown address', reason: 'sso_refused', sso, detail, login })
