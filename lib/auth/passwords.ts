import 'server-only'
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * Passwords are stored with scrypt (memory-hard), at OWASP's current parameters: N = 2^17,
 * r = 8, p = 1 (128 MiB, a few hundred ms). The parameters ride in the stored string, so they
 * can be raised later without breaking old hashes.
 */
const N = 2 ** 17
const R = 8
const P = 1
const KEY_LEN = 32

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) => new Promise<Buffer>((resolve, reject) =>
  scrypt(password.normalize('NFKC'), salt, KEY_LEN, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (e, key) => (e ? reject(e) : resolve(key))))

/** `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, N, R, P)
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** Whether `password` matches `stored`; a missing or malformed hash never does (after the same work). */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const m = stored && /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored)
  if (!m) {
    // the same work as a real check: the answer's timing does not tell which usernames exist
    await derive(password, randomBytes(16), N, R, P)
    return false
  }
  const expected = Buffer.from(m[5], 'base64url')
  const key = await derive(password, Buffer.from(m[4], 'base64url'), Number(m[1]), Number(m[2]), Number(m[3]))
  return key.length === expected.length && timingSafeEqual(key, expected)
}
