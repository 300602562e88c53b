import 'server-only'
import type { Db, Tx } from '@/db/client'
import { deleteBreakGlassSessions } from '@/db/queries/operators'
import { writeTransaction } from '@/db/write'
import { hashSecret, newSecret } from '@/lib/auth/secrets'
import { OPERATOR_KEY_PREFIX } from '@/lib/auth/operator-key'
import { operatorKeyHash, setOperatorKeyHash } from '@/db/queries/auth'
import { listActivity } from '@/db/queries/activity'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { badRequest } from '@/lib/core/errors'
import { envVar } from '@/lib/core/config'

/** A new key hash; the dashboard sessions the old break-glass key opened end with it (people's own sessions stay). Returns how many ended. */
function setKeyHash(tx: Tx, hash: string): number {
  setOperatorKeyHash(tx, hash)
  return deleteBreakGlassSessions(tx)
}

/** The shortest TOOLGATE_API_KEY accepted: it is the whole of the operator's credential, and can be guessed at. */
export const MIN_API_KEY_LENGTH = 24

const FROM_VARIABLE = 'toolgate:TOOLGATE_API_KEY'

/**
 * What TOOLGATE_API_KEY (as this process sees it) is to the stored key: `short` below the
 * minimum (a serve started with it stops); `none` when no key is stored yet; `other` when it is
 * not the stored key (a server started without it uses the stored one); `copy` when it is the
 * key toolgate made (printed once, exported since); `source` when the stored key is the
 * variable's own, put there by a serve started with it, which puts it back on its next start.
 * The stored hash cannot tell `copy` from `source`; the last rotation's record can (a key the
 * variable set first has no record, so no record means the variable).
 */
export type EnvKeyState = 'short' | 'none' | 'other' | 'copy' | 'source'
export function envKeyState(db: Db, fromEnv: string): EnvKeyState {
  if (fromEnv.length < MIN_API_KEY_LENGTH) return 'short'
  const stored = operatorKeyHash(db)
  if (!stored) return 'none'
  if (stored !== hashSecret(fromEnv)) return 'other'
  const [last] = listActivity(db, { type: 'operator_key.rotated', limit: 1 })
  return !last || last.actor === FROM_VARIABLE ? 'source' : 'copy'
}

/**
 * Make sure an operator key exists. TOOLGATE_API_KEY wins (its hash is stored; one shorter
 * than MIN_API_KEY_LENGTH stops the start); otherwise a key is generated once. Returns the key
 * only when it was just generated, so it can be printed exactly once; only its hash is kept.
 */
export async function ensureOperatorKey(db: Db, fromEnv = envVar('TOOLGATE_API_KEY')): Promise<string | undefined> {
  if (fromEnv) {
    if (fromEnv.length < MIN_API_KEY_LENGTH) throw badRequest(`TOOLGATE_API_KEY is ${fromEnv.length} characters long: use at least ${MIN_API_KEY_LENGTH} (e.g. openssl rand -base64 32), or unset it to let toolgate generate a key`)
    const h = hashSecret(fromEnv)
    if (operatorKeyHash(db) === h) return undefined // the usual start: nothing to write
    // judged again under the write lock: a rotation meanwhile is what this replaces
    await writeTransaction(db, (tx) => {
      const stored = operatorKeyHash(tx)
      if (stored === h) return
      const signedOut = setKeyHash(tx, h)
      // a key the variable replaces stopped working: that is on the record, as a rotation is
      if (stored) recordChange(tx, 'operator_key.rotated', { actor: FROM_VARIABLE }, { target: 'operator key', before: null, after: { sessions_signed_out: signedOut } })
    })
    return undefined
  }
  if (operatorKeyHash(db)) return undefined
  return writeTransaction(db, (tx) => (operatorKeyHash(tx) ? undefined : rotateIn(tx, { actor: 'toolgate:first-start' }).key))
}

/** Replace the break-glass (operator) key, on the record; returns the new key (shown once). Its sessions are signed out. */
export async function rotateOperatorKey(db: Db, ctx: ActionContext) {
  return writeTransaction(db, (tx) => rotateIn(tx, ctx))
}

function rotateIn(tx: Tx, ctx: ActionContext) {
  const key = newSecret(OPERATOR_KEY_PREFIX)
  const signedOut = setKeyHash(tx, hashSecret(key))
  // the key itself is never recorded; what changed is that the old one stopped working
  const record = recordChange(tx, 'operator_key.rotated', ctx, { target: 'operator key', before: null, after: { sessions_signed_out: signedOut } })
  return { key, signedOut, ...record }
}
