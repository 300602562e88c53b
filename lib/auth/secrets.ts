import 'server-only'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** Secrets here are long random strings, so a plain sha256 is a sound one-way store. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && timingSafeEqual(x, y)
}

export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`
}
