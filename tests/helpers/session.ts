import type { Db } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { operatorByLogin, insertOperator } from '@/db/queries/operators'
import { newOperatorId } from '@/lib/auth/accounts'
import { issueSession } from '@/lib/auth/operator-sessions'
import type { Role } from '@/lib/auth/roles'
import type { Operator } from '@/db/schema'
import { SESSION_COOKIE, SESSION_KEY_HEADER } from '@/lib/dashboard/session-cookie'

/** An enabled local account (no password) named `username`, made once. */
export async function person(db: Db, username: string, role: Role): Promise<Operator> {
  const found = operatorByLogin(db, username)
  if (found) return found
  const row: Operator = { id: newOperatorId(), username, name: username, email: null, role, enabled: true, passwordHash: null, source: 'local', oidcSubject: null, createdAt: Date.now() }
  await writeTransaction(db, (tx) => insertOperator(tx, row))
  return row
}

/** A fresh session of a person with `role` (an admin unless said), as the headers a signed-in page sends: the cookie and the session key. */
export async function operatorSessionHeaders(db: Db, role: Role = 'admin', username = `test-${role}`): Promise<Record<string, string>> {
  const { value, key } = await issueSession(db, await person(db, username, role), 'password')
  return { cookie: `${SESSION_COOKIE}=${value}`, [SESSION_KEY_HEADER]: key }
}
