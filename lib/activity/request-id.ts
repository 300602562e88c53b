import { randomFillSync } from 'node:crypto'
import type { Db } from '@/db/client'
import { requestOwner } from '@/db/queries/activity'
import { REQUEST_ID_RE } from '@/lib/schemas/request-id'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ' // Crockford base32: sortable, unambiguous

/** Ids' random bytes are drawn from a pool filled in bulk (one CSPRNG call per this many ids, not one each); every byte is used once. */
export const IDS_PER_FILL = 256
const pool = Buffer.alloc(16 * IDS_PER_FILL)
let next = pool.length

/** A sortable id: "req_" + 10 chars of time + 16 random chars. */
export function mintRequestId(now = Date.now()): string {
  let time = ''
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time
  if (next === pool.length) {
    randomFillSync(pool)
    next = 0
  }
  let tail = ''
  // 256 is a multiple of 32: each char is uniform
  for (const end = next + 16; next < end; next++) tail += ALPHABET[pool[next] % 32]
  return `req_${time}${tail}`
}

/** Reuse the client's X-Request-Id when it is well-formed (`fromClient`), otherwise mint one. */
export function requestIdFrom(header: string | null | undefined): { requestId: string; fromClient: boolean } {
  return header && REQUEST_ID_RE.test(header) ? { requestId: header, fromClient: true } : { requestId: mintRequestId(), fromClient: false }
}

/**
 * The id an authenticated caller's request is recorded under. A client's own X-Request-Id is
 * kept while it is the caller's — nothing is recorded under it yet, or its first record is this
 * caller's — and otherwise replaced by a fresh one (answered in X-Request-Id as always): a client
 * may tie its own requests into one story, never add records to another caller's.
 */
export function ownRequestId(db: Db, requestId: string, fromClient: boolean, caller: string): string {
  if (!fromClient) return requestId
  const owner = requestOwner(db, requestId)
  return owner === undefined || owner === caller ? requestId : mintRequestId()
}
