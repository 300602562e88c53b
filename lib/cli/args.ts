import { existsSync } from 'node:fs'
import { userInfo } from 'node:os'
import Database from 'better-sqlite3'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { openDb, type Db } from '@/db/client'
import * as schema from '@/db/schema'
import { databaseOf } from '@/lib/server/address'

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

export function openCliDb(file: string | undefined): Db {
  return openDb(cliDbFile(file))
}

export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return 'cli'
  }
}

/**
 * The database opened read-only and left as it is (no migration), or null when there is no
 * file: for commands that only look (version, completion) and must never create or change one.
 */
export function openReadOnly(file: string | undefined): Db | null {
  const f = cliDbFile(file)
  if (!existsSync(f)) return null
  return drizzle(new Database(f, { readonly: true, fileMustExist: true }), { schema }) as Db
}
