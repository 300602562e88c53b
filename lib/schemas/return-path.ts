import { z } from 'zod'

const BASE = 'http://toolgate.invalid'

/**
 * A path on this site to send a browser to (after sign-in, after an OAuth login), or null.
 * Refused: anything with control or whitespace characters (raw or as they decode), "//" and
 * "/\" starts, backslashes, and anything `new URL(path, origin)` resolves off this origin.
 * The answer is the path as a browser normalizes it (dot segments, "%2e" among them, removed),
 * and that too must not start with "//" or "/\": "/.//evil.example" is "//evil.example", which a
 * browser reads as another host.
 */
export function sameSitePath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000 || !value.startsWith('/')) return null
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(value)) return null
  if (value.startsWith('//')) return null
  let decoded: string
  try {
    decoded = decodeURIComponent(value)
  } catch {
    return null
  }
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(decoded) || decoded.startsWith('//')) return null
  const url = new URL(value, BASE)
  if (url.origin !== BASE || url.pathname.startsWith('//') || url.pathname.startsWith('/\\')) return null
  return url.pathname + url.search + url.hash
}

/** A return target: a same-site path, else the dashboard's home. */
export const returnPathSchema = z.unknown().transform((v) => sameSitePath(v) ?? '/')

/** A return target that must be valid (a named 400 instead of a silent fallback). */
export const strictReturnPathSchema = z.string().refine((v) => sameSitePath(v) !== null, 'must be a path on this site')
