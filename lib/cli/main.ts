import { parseArgs } from 'node:util'
import pkg from '@/package.json'
import { ToolgateError } from '@/lib/core/errors'
import type { Db } from '@/db/client'
import { cliActor, didYouMean, lookAlike, UsageError } from './args'
import { findCommand } from './completion'
import { commandHelp, groupHelp, overview } from './help'
import { allFlags, type Command, type FlagSpec, type Values } from './spec'
import { commands, groups } from './commands'
import { forTerminal, toJson } from './output'
import { envVar } from '@/lib/core/config'

// Only what every call needs is imported here; each command loads what it runs (the database
// driver with lib/cli/db.ts), so help, --version and completion of command words stay light.

/** The command being run, for an error's hint. */
let current: Command | undefined

/** Whether the words before `--` ask for help. */
const asksHelp = (words: string[]) => {
  const end = words.indexOf('--')
  return (end < 0 ? words : words.slice(0, end)).some((w) => w === '--help' || w === '-h')
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version') {
    console.log(`toolgate ${pkg.version}`)
    return 0
  }
  // a bare `toolgate` asks what there is: the overview, like --help
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
    console.log(overview(groups, commands))
    return 0
  }
  const c = findCommand(commands, argv)
  if (!c) {
    const g = groups.find((x) => x.name === argv[0])
    if (!g) {
      const first = [...new Set(commands.filter((x) => !x.hidden).map((x) => x.name.split(' ')[0]))]
      if (argv[0].startsWith('-')) throw new UsageError(`unknown flag ${argv[0]}`, didYouMean(lookAlike(argv[0], ['--help', '--version']), 'toolgate --help lists the commands'))
      throw new UsageError(`unknown command "${argv[0]}"`, didYouMean(lookAlike(argv[0], first), 'toolgate --help lists the commands'))
    }
    if (argv.length === 1 || asksHelp(argv.slice(1, 2))) {
      console.log(groupHelp(g, commands))
      return 0
    }
    const subs = commands.filter((x) => !x.hidden && x.name.startsWith(`${g.name} `)).map((x) => x.name.slice(g.name.length + 1))
    throw new UsageError(`unknown command "${g.name} ${argv[1]}"`, didYouMean(lookAlike(argv[1], subs).map((s) => `${g.name} ${s}`), `toolgate ${g.name} --help lists its commands`))
  }
  current = c
  return run(c, argv.slice(c.name.split(' ').length))
}

/** The flag a word names (`--name`, `--name=value`, `-x`), when it is one. */
function flagWord(word: string): string | undefined {
  if (word === '-' || !word.startsWith('-')) return undefined
  return word.startsWith('--') ? word.slice(2).split('=')[0] : word.slice(1, 2)
}

/** Every flag the words give must be one of the command's own: named, with a suggestion, before parsing. */
function checkFlags(c: Command, words: string[], flags: Record<string, FlagSpec>): void {
  const end = words.indexOf('--')
  const shorts = Object.fromEntries(Object.entries(flags).filter(([, f]) => f.short).map(([name, f]) => [f.short!, name]))
  const given = end < 0 ? words : words.slice(0, end)
  for (let i = 0; i < given.length; i++) {
    const w = given[i]
    const name = flagWord(w)
    if (name === undefined) continue
    const known = w.startsWith('--') ? flags[name] : flags[shorts[name]]
    if (known) {
      if (known.type === 'string' && !w.includes('=') && !(w.startsWith('-') && !w.startsWith('--') && w.length > 2)) i++ // its value, whatever it looks like
      continue
    }
    const names = Object.keys(flags).map((f) => `--${f}`)
    throw new UsageError(`unknown flag ${w.split('=')[0]} for toolgate ${c.name}`, didYouMean(lookAlike(`--${name}`, names), `toolgate ${c.name} --help lists its flags`))
  }
}

/** node:util's parse errors, in this CLI's words (its own quote the flag unevenly). */
function parseFault(e: unknown): UsageError {
  const err = e as NodeJS.ErrnoException
  const flag = /'(--?[\w-]+)/.exec(err.message)?.[1]
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    if (/does not take an argument/.test(err.message)) return new UsageError(`${flag} takes no value`)
    return new UsageError(/ambiguous/.test(err.message) ? `${flag} needs a value (one that starts with "-" goes as ${flag}=-…)` : `${flag} needs a value`)
  }
  return new UsageError(err.message.replace(/'/g, '"'))
}

/** Parse a command's words with its own flag table, check its arguments, run it. */
async function run(c: Command, words: string[]): Promise<number> {
  if (asksHelp(words) && !c.raw) {
    console.log(commandHelp(c))
    return 0
  }
  // commands on a database load its driver, and mint the request id their records go under;
  // the others (help, completion, its helper) record nothing and stay light
  const takesDb = c.db !== false
  if (envVar('TOOLGATE_DATABASE_URL') !== undefined && !c.postgres && takesDb) throw await sqliteOnly(c.name)
  const [{ openCliDb }, { mintRequestId }] = takesDb ? await Promise.all([import('./db'), import('@/lib/activity/request-id')]) : [{ openCliDb: undefined }, { mintRequestId: () => '' }]
  const ctx = { actor: cliActor(), requestId: mintRequestId() }
  const noDb = () => { throw new Error(`toolgate ${c.name} takes no database`) }
  if (c.raw) return c.run({ values: {}, args: words, json: false, db: noDb, ctx })
  const flags = allFlags(c)
  checkFlags(c, words, flags)
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: words, allowPositionals: true, strict: true,
      options: Object.fromEntries(Object.entries(flags).map(([name, f]) => [name, { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) }])),
    })
  } catch (e) {
    throw parseFault(e)
  }
  // parsed with the command's own flag table, so each value has the type its flag declares
  const { values, positionals } = parsed as unknown as { values: Values<Record<string, FlagSpec>> & { output?: string }; positionals: string[] }
  if (values.output !== undefined && values.output !== 'table' && values.output !== 'json') throw new UsageError(`-o must be table or json, not "${values.output}"`)
  checkArgs(c, positionals)
  let db: Db | undefined
  const code = await c.run({ values, args: positionals, json: values.output === 'json', db: openCliDb ? () => (db ??= openCliDb(values.db, c.createsDb === true)) : noDb, ctx })
  if (db) await noteOtherDatabase(db, values.db)
  return code
}

/**
 * The command read the default database and no toolgate runs on it, yet one answers at the
 * default address: that server runs on another database, so what was read here is not what it
 * serves. Say so (once, on stderr) instead of letting a "ready" pass for the server's answer.
 */
async function noteOtherDatabase(db: Db, flag: string | undefined): Promise<void> {
  const { databaseOf, serverUrlOf, toolgateAnswersAt } = await import('@/lib/server/address')
  const { runtimeHolder } = await import('@/db/queries/connections')
  const { file, from } = databaseOf(flag)
  const { isStoreOpen } = await import('@/db/client')
  if (from !== 'default' || !isStoreOpen(db) || runtimeHolder(db)) return
  const { url } = serverUrlOf(null, undefined)
  if (!(await toolgateAnswersAt(url))) return
  console.error(`toolgate: note: this read ${file} (no --db, no $TOOLGATE_DB), but the toolgate answering at ${url} does not run on it: it was started on another database. Give this command the same database: --db FILE or TOOLGATE_DB=FILE`)
}

/**
 * $TOOLGATE_DATABASE_URL asks for PostgreSQL, which only db copy and doctor run on so far: any
 * other command would quietly read and write the SQLite file instead, so it refuses.
 */
async function sqliteOnly(name: string): Promise<Error> {
  const { maskUrl } = await import('@/db/pg/url')
  const what = name === 'serve' ? 'serving on PostgreSQL is not available yet' : `toolgate ${name} does not run on PostgreSQL yet`
  return new Error(`${what}: TOOLGATE_DATABASE_URL is set (${maskUrl(envVar('TOOLGATE_DATABASE_URL')!)}), and toolgate would otherwise quietly use the SQLite file. What works on PostgreSQL now: toolgate db copy (copy a SQLite database into it), toolgate db migrate and toolgate doctor (connection, server version, migrations). To run on SQLite, unset TOOLGATE_DATABASE_URL (the file: --db or TOOLGATE_DB).`)
}

function checkArgs(c: Command, positionals: string[]): void {
  c.args.forEach((a, i) => {
    if (positionals[i] !== undefined || a.optional) return
    throw new UsageError(a.variadic ? `give at least one ${a.what}` : `missing ${a.what}: toolgate ${c.name} ${c.args.map((x) => x.name).join(' ')}`)
  })
  if (!c.args.at(-1)?.variadic && positionals.length > c.args.length) throw new UsageError(`unexpected argument "${positionals[c.args.length]}"`)
}

/** What to look at next, for an error. */
function hint(e: unknown): string {
  const help = current ? `toolgate ${current.name} --help shows its usage` : 'toolgate --help lists the commands'
  if (e instanceof UsageError) return e.hint ?? help
  if (e instanceof ToolgateError) {
    if (e.kind === 'unauthorized') return 'check the credentials: --token, --api-key or $TOOLGATE_API_KEY'
    const kinds = new Set(current?.args.map((a) => a.complete))
    if (e.kind === 'not_found' && kinds.has('server')) return 'toolgate upstream list shows the servers'
    if (e.kind === 'not_found' && kinds.has('tool')) return 'toolgate tools list shows the known tools'
    if (e.kind === 'not_found' && kinds.has('call')) return 'toolgate calls list shows the held calls'
    return help
  }
  return 'toolgate doctor checks the setup (Node.js, the database, the build, the port)'
}

/** Whether the command line asked for JSON: then errors are JSON too, on stderr. */
function wantsJson(argv: string[]): boolean {
  return argv.some((w, i) => w === '-ojson' || w === '--output=json' || ((w === '-o' || w === '--output') && argv[i + 1] === 'json'))
}

const argv = process.argv.slice(2)
// Any failure that is not a verdict exits 1, with the reason (and where to look) on stderr.
main(argv).then(
  (code) => { process.exitCode = code },
  (e: unknown) => {
    const message = e instanceof Error ? e.message : String(e)
    const code = e instanceof UsageError ? 'usage' : e instanceof ToolgateError ? e.kind : 'error'
    // a message may quote what a file, an upstream or an agent said: escaped for the terminal
    if (wantsJson(argv)) console.error(toJson({ error: { code, message, hint: hint(e) } }, 0))
    else console.error(`toolgate: ${forTerminal(message, { lines: true })}\nhint: ${forTerminal(hint(e))}`)
    process.exitCode = 1
  },
)
