import { cliDbFile, UsageError } from '@/lib/cli/args'
import { table, terminal, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import type { CopyProgress } from '@/db/queries/pg-copy'
import type { PgDb } from '@/db/pg/client'
import { envVar } from '@/lib/core/config'

export const DATABASE_URL_VAR = 'TOOLGATE_DATABASE_URL'

/** The PostgreSQL URL a command was given (its flag, else $TOOLGATE_DATABASE_URL), checked; undefined when neither is set. */
export async function databaseUrlOf(flag: string | undefined, flagName: string): Promise<string | undefined> {
  const raw = flag ?? envVar(DATABASE_URL_VAR)
  if (raw === undefined) return undefined
  const { parseDatabaseUrl } = await import('@/lib/schemas/database')
  return parseDatabaseUrl(raw, flag !== undefined ? flagName : `$${DATABASE_URL_VAR}`)
}

/** `fn` on a connection to the database at `url`, closed afterwards; its password masked in any error (a driver's or the server's message may quote the URL). */
async function withPostgres<T>(url: string, fn: (target: PgDb) => Promise<T>): Promise<T> {
  const [{ closePg, connectPg }, { maskIn }] = await Promise.all([import('@/db/pg/client'), import('@/db/pg/url')])
  const target = await connectPg(url)
  try {
    return await fn(target)
  } catch (e) {
    if (e instanceof Error) e.message = maskIn(e.message, url)
    throw e
  } finally {
    await closePg(target)
  }
}

/** Progress on stderr: a bar redrawn in place on a terminal, a line per table otherwise (a log, CI). */
function progressOnStderr(): (p: CopyProgress) => void {
  const tty = process.stderr.isTTY === true
  const width = 30
  return ({ table: name, copied, total }) => {
    const finished = copied === total
    if (!tty) {
      if (finished) process.stderr.write(`copied ${name}: ${total} row${total === 1 ? '' : 's'}\n`)
      return
    }
    const filled = total ? Math.round((copied / total) * width) : width
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${name} ${copied}/${total}\x1b[K${finished ? '\n' : ''}`)
  }
}

const copyCommand = command({
  name: 'db copy',
  summary: 'copy a stopped toolgate\'s SQLite database, everything and the activity log included, into an empty PostgreSQL database',
  details: 'Migrates the target (an empty database: no tables of its own, no rows in toolgate\'s) and copies every table in one transaction per batch of rows, reading the SQLite file as one snapshot; progress goes to stderr. At the end it compares every table\'s row count and verifies the activity chain on PostgreSQL. Refused while a toolgate runs on the SQLite file (stop it first), and for a target that is not empty, before anything is written. The password in the URL is masked in every message. Stored upstream secrets stay sealed with the key file beside the SQLite file (FILE.key): keep that file. Serving on PostgreSQL is not available yet: this copy and toolgate doctor are what work on it so far.',
  args: [],
  flags: {
    to: { type: 'string', value: 'URL', default: '$TOOLGATE_DATABASE_URL', description: 'the PostgreSQL database to copy into: postgres://user:password@host:port/database' },
  },
  postgres: true,
  examples: [
    ['createdb toolgate && toolgate db copy --to postgres://toolgate@localhost/toolgate', 'copy ./data/toolgate.db into a new database'],
    ['toolgate db copy --db /srv/toolgate.db --to "$URL" -o json', 'another file; the counts as JSON'],
  ],
  exits: { 0: 'copied, every count equal and the chain verified', 1: `a toolgate runs on the file, the target is not empty or does not answer, a count or the chain differs, or ${EXIT_ERROR}` },
  run: async ({ values, json, db }) => {
    const url = await databaseUrlOf(values.to, '--to')
    if (!url) throw new UsageError('give the PostgreSQL database to copy into: --to postgres://user:password@host:port/database (or set TOOLGATE_DATABASE_URL)')
    const [{ runtimeHolder }, { copyToPostgres }, { maskUrl }] = await Promise.all([
      import('@/db/queries/connections'), import('@/db/queries/pg-copy'), import('@/db/pg/url'),
    ])
    const file = cliDbFile(values.db)
    const source = db()
    const holder = runtimeHolder(source)
    if (holder) throw new Error(`a toolgate (pid ${holder.pid}${holder.url ? `, at ${holder.url}` : ''}) is running on ${file}: stop it first (kill ${holder.pid}), so that nothing is written during the copy. Nothing was copied.`)
    return withPostgres(url, async (target) => {
      const report = await copyToPostgres(source, target, progressOnStderr())
      const rows = report.tables.reduce((n, t) => n + t.rows, 0)
      const chain = report.chain === null ? 'no chained activity records' : report.chain.ok ? `verified: ${report.chain.records} records, head ${report.chain.head?.id ?? '-'}` : `does not verify: ${report.chain.problem}`
      if (json) {
        console.log(toJson({ from: file, to: maskUrl(url), tables: report.tables, rows, chain: report.chain, source_chain_problem: report.sourceChainProblem }))
      } else {
        console.log([
          table(['TABLE', 'ROWS'], report.tables.map((t) => [t.table, String(t.rows)]), terminal()),
          '',
          `copied ${file} to ${maskUrl(url)}: ${rows} rows in ${report.tables.length} tables, every count equal; activity chain ${chain}`,
          ...(report.sourceChainProblem ? [`note: the source's own activity chain already did not verify (${report.sourceChainProblem}); the copy holds it as it was`] : []),
        ].join('\n'))
      }
      return 0
    })
  },
})

const migrateCommand = command({
  name: 'db migrate',
  summary: 'apply toolgate\'s PostgreSQL migrations to a database (what db copy does first)',
  args: [],
  flags: {
    'database-url': { type: 'string', value: 'URL', default: '$TOOLGATE_DATABASE_URL', description: 'the PostgreSQL database: postgres://user:password@host:port/database' },
  },
  db: false,
  postgres: true,
  examples: [
    ['toolgate db migrate --database-url postgres://toolgate@localhost/toolgate', 'bring a database up to this toolgate\'s schema'],
    ['TOOLGATE_DATABASE_URL=postgres://toolgate@localhost/toolgate toolgate db migrate -o json', 'the same, from the environment; the version as JSON'],
  ],
  exits: { 0: 'migrated (or already current)', 1: `the database does not answer, or ${EXIT_ERROR}` },
  run: async ({ values, json }) => {
    const url = await databaseUrlOf(values['database-url'], '--database-url')
    if (!url) throw new UsageError('give the PostgreSQL database: --database-url postgres://user:password@host:port/database (or set TOOLGATE_DATABASE_URL)')
    const [{ migratePg }, { pgSchemaVersion }, { maskUrl }] = await Promise.all([import('@/db/pg/client'), import('@/db/queries/schema-version'), import('@/db/pg/url')])
    return withPostgres(url, async (target) => {
      await migratePg(target)
      const v = await pgSchemaVersion(target)
      console.log(json ? toJson({ database: maskUrl(url), applied: v.applied, latest: v.latest }) : `${maskUrl(url)}: migrated (${v.applied})`)
      return 0
    })
  },
})

export const dbCommands: Command[] = [copyCommand, migrateCommand]
