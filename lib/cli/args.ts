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

