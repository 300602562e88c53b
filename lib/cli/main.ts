import { parseArgs } from 'node:util'
import pkg from '@/package.json'
import { mintRequestId } from '@/lib/activity/request-id'
import { ToolgateError } from '@/lib/errors'
import type { Db } from '@/db/client'
import { runtimeHolder } from '@/db/queries/connections'
import { databaseOf, serverUrlOf, toolgateAnswersAt } from '@/lib/server/address'
import { cliActor, openCliDb, UsageError } from './args'
import { findCommand } from './completion'
import { commandHelp, groupHelp, overview } from './help'
import { allFlags, type Command, type FlagSpec, type Values } from './spec'
import { commands, groups } from './commands'

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
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
    console.log(overview(groups, commands))
    return argv.length === 0 ? 1 : 0 // a bare `toolgate` in a script is a mistake
  }
  const c = findCommand(commands, argv)
  if (!c) {
    const g = groups.find((x) => x.name === argv[0])
    if (!g) throw new UsageError(`unknown command "${argv[0]}"`, 'toolgate --help lists the commands')
    if (argv.length === 1 || asksHelp(argv.slice(1, 2))) {
      console.log(groupHelp(g, commands))
      return argv.length === 1 ? 1 : 0
    }
    throw new UsageError(`unknown command "${g.name} ${argv[1]}"`, `toolgate ${g.name} --help lists its commands`)
  }
  current = c
  return run(c, argv.slice(c.name.split(' ').length))
}

/** Parse a command's words with its own flag table, check its arguments, run it. */
async function run(c: Command, words: string[]): Promise<number> {
  const ctx = { actor: cliActor(), requestId: mintRequestId() }
  if (c.raw) return c.run({ values: {}, args: words, json: false, db: () => openCliDb(undefined), ctx })
  if (asksHelp(words)) {
    console.log(commandHelp(c))
    return 0
  }
  const flags = allFlags(c)
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: words, allowPositionals: true, strict: true,
      options: Object.fromEntries(Object.entries(flags).map(([name, f]) => [name, { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) }])),
    })
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
  // parsed with the command's own flag table, so each value has the type its flag declares
  const { values, positionals } = parsed as unknown as { values: Values<Record<string, FlagSpec>> & { output?: string }; positionals: string[] }
  if (values.output !== undefined && values.output !== 'table' && values.output !== 'json') throw new UsageError(`-o must be table or json, not "${values.output}"`)
  checkArgs(c, positionals)
  let db: Db | undefined
  const code = await c.run({ values, args: positionals, json: values.output === 'json', db: () => (db ??= openCliDb(values.db)), ctx })
  if (db) await noteOtherDatabase(db, values.db)
  return code
}

/**
 * The command read the default database and no toolgate runs on it, yet one answers at the
 * default address: that server runs on another database, so what was read here is not what it
 * serves. Say so (once, on stderr) instead of letting a "ready" pass for the server's answer.
 */
async function noteOtherDatabase(db: Db, flag: string | undefined): Promise<void> {
  const { file, from } = databaseOf(flag)
  if (from !== 'default' || !db.$client.open || runtimeHolder(db)) return
  const { url } = serverUrlOf(undefined, undefined)
  if (!(await toolgateAnswersAt(url))) return
  console.error(`toolgate: note: this read ${file} (no --db, no $TOOLGATE_DB), but the toolgate answering at ${url} does not run on it: it was started on another database. Give this command the same database: --db FILE or TOOLGATE_DB=FILE`)
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
    if (wantsJson(argv)) console.error(JSON.stringify({ error: { code, message, hint: hint(e) } }))
    else console.error(`toolgate: ${message}\nhint: ${hint(e)}`)
    process.exitCode = 1
  },
)
