import { randomBytes } from 'node:crypto'
import { REQUEST_ID_RE } from '@/lib/schemas/request-id'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ' // Crockford base32: sortable, unambiguous

/** A sortable id: "req_" + 10 chars of time + 16 random chars. */
export function mintRequestId(now = Date.now()): string {
  let time = ''
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time
  const rand = randomBytes(16)
  let tail = ''
  for (const b of rand) tail += ALPHABET[b % 32]
  return `req_${time}${tail}`
}

/** Reuse the caller's X-Request-Id when it is well-formed, otherwise mint one. */
export function requestIdFrom(header: string | null | undefined): string {
  return header && REQUEST_ID_RE.test(header) ? header : mintRequestId()
}
