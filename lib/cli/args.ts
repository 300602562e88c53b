import { userInfo } from 'node:os'
import { databaseOf } from '@/lib/server/address'
import { editDistance } from '@/lib/preflight/suggest'

// What every command may need, and nothing heavy: the database driver is lib/cli/db.ts, loaded
// only by the commands that open a database.

/** A mistake in the command line; `hint` says where to look instead of the default `--help`. */
export class UsageError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message)
  }
}

const UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const

/** A duration flag: 500ms, 2s, 15m, 1h (a bare number is milliseconds). */
export function parseDuration(flag: string, v: string, maxMs = Number.MAX_SAFE_INTEGER): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim())
  if (!m) throw new UsageError(`${flag} must be a duration like 500ms, 2s, 15m or 1h, not "${v}"`)
  const ms = Math.round(Number(m[1]) * UNITS[(m[2] ?? 'ms') as keyof typeof UNITS])
  if (ms > maxMs) throw new UsageError(`${flag} must be at most ${maxMs / 1000}s, not "${v}"`)
  return ms
}

/** An integer flag within bounds, or its default when not given. */
export function intFlag(flag: string, v: string | undefined, dflt: number, min: number, max: number): number {
  const n = v === undefined ? dflt : Number(v)
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be an integer ${min}..${max}, not "${v}"`)
  return n
}

/** Up to three of `known` that look like `word`: a prefix either way, or at most two edits away. */
export function lookAlike(word: string, known: string[]): string[] {
  return known
    .map((k) => ({ k, prefix: word.length > 1 && (k.startsWith(word) || word.startsWith(k)), dist: editDistance(word, k) }))
    .filter((c) => c.k !== word && (c.prefix || c.dist <= 2))
    .sort((a, b) => Number(b.prefix) - Number(a.prefix) || a.dist - b.dist || a.k.localeCompare(b.k))
    .slice(0, 3).map((c) => c.k)
}

/** `did you mean "a" or "b"? (otherwise)`, or just `otherwise` when nothing looks alike. */
export const didYouMean = (found: string[], otherwise: string) => (found.length ? `did you mean ${found.map((f) => `"${f}"`).join(' or ')}? (${otherwise})` : otherwise)

/** The database a command reads: the one rule the server follows too (lib/server/address.ts). */
export function cliDbFile(file: string | undefined): string {
  return databaseOf(file).file
}

export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return 'cli'
  }
}
