import { parseArgs, type ParseArgsConfig } from 'node:util'
import { userInfo } from 'node:os'
import { openDb, type Db } from '@/db/client'
import { defaultDbFile } from '@/lib/paths'

export class UsageError extends Error {}

/** util.parseArgs with errors turned into usage errors that name the bad flag. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: { ...options, db: { type: 'string' }, output: { type: 'string', short: 'o' } }, allowPositionals: true, strict: true })
  } catch (e) {
    throw new UsageError((e as Error).message)
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

export function outputFormat(v: string | undefined): 'table' | 'json' {
  if (v === undefined || v === 'table' || v === 'json') return v ?? 'table'
  throw new UsageError(`-o must be table or json, not "${v}"`)
}

export function openCliDb(file: string | undefined): Db {
  return openDb(file ?? defaultDbFile())
}

export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return 'cli'
  }
}

export function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`expected exactly one ${what}`)
  return positionals[0]
}

