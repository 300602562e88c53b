import { userInfo } from 'node:os'
import { databaseOf } from '@/lib/server/address'

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
