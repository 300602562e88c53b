import { cliActor, openCliDb, outputFormat, parse, UsageError } from '@/lib/cli/args'
import { table } from '@/lib/cli/output'
import { readSettings } from '@/db/queries/settings'
import { presentSettings, updateSettings } from '@/lib/admin/settings'

const USAGE = `usage:
  toolgate settings list [-o json]
  toolgate settings set <name> <value>     names: quarantine_enabled (true|false),
                                           mcp_anonymous_profile (<profile>|null),
                                           activity_retention_days (<days>|null)`

/** A value as typed on the command line: null, a boolean, a whole number, or a string. */
function cliValue(v: string): unknown {
  if (v === 'null' || v === 'none') return null
  if (v === 'true' || v === 'false') return v === 'true'
  return /^-?\d+$/.test(v) ? Number(v) : v
}

export async function settingsCommand(sub: string | undefined, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {})
  const format = outputFormat(values.output)
  const db = openCliDb(values.db)
  if (sub === 'list' || sub === undefined) {
    const s = presentSettings(readSettings(db))
    if (format === 'json') console.log(JSON.stringify(s, null, 2))
    else console.log(table(['NAME', 'VALUE'], Object.entries(s).map(([k, v]) => [k, String(v)])))
    return 0
  }
  if (sub === 'set') {
    if (positionals.length !== 2) throw new UsageError(USAGE)
    const [name, raw] = positionals
    const r = await updateSettings(db, { [name]: cliValue(raw) }, { actor: cliActor() })
    if (format === 'json') console.log(JSON.stringify({ changed: name, before: r.before, after: r.after, activity_id: r.activityId, request_id: r.requestId }, null, 2))
    else console.log(`${name}: ${String(r.before[name as keyof typeof r.before])} → ${String(r.after[name as keyof typeof r.after])}  (activity ${r.activityId}, request_id ${r.requestId})`)
    return 0
  }
  throw new UsageError(USAGE)
}
