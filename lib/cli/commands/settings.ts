import { didYouMean, lookAlike, UsageError } from '@/lib/cli/args'
import { table, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'

/** A value as typed on the command line: null, a boolean, a number, or a string. */
function cliValue(v: string): unknown {
  if (v === 'null' || v === 'none') return null
  if (v === 'true' || v === 'false') return v === 'true'
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v
}

export const settingsCommands: Command[] = [
  command({
    name: 'settings list',
    summary: 'every proxy-wide setting and its value',
    args: [],
    flags: {},
    examples: [['toolgate settings list', 'the settings'], ['toolgate settings list -o json | jq .activity_retention_days', 'one value for a script']],
    exits: { 0: 'listed', 1: EXIT_ERROR },
    run: async ({ json, db }) => {
      const [{ readSettings }, { presentSettings }] = await Promise.all([import('@/db/queries/settings'), import('@/lib/admin/settings')])
      const s = presentSettings(readSettings(db()))
      if (json) console.log(toJson(s))
      else console.log(table(['NAME', 'VALUE'], Object.entries(s).map(([k, v]) => [k, String(v)])))
      return 0
    },
  }),
  command({
    name: 'settings set',
    summary: 'change one setting',
    details: 'Values: null (or none), true, false and numbers are typed, anything else is a string. Names: quarantine_enabled (true|false), mcp_anonymous_profile (<profile>|null), activity_retention_days (<days>|null), call_approval_wait_ms (<ms>), max_description_overlap (0..1|null: approving a tool that reads more like a served one than this asks first; see toolgate surface report), agent_requests_per_second (<n>|null) and agent_recorded_mib_per_hour (<MiB>|null): limits per agent token, break_glass_key (true|false: whether the shared key still signs in; turning it off needs an admin account), two_person_rule (off|destructive|all: which approvals need two different approvers), local_accounts (true|false: whether passwords sign in; turning them off needs single sign-on configured and an admin who signed in through it; the break-glass key stays).',
    args: [{ name: '<name>', what: 'setting name', complete: 'setting' }, { name: '<value>', what: 'value' }],
    flags: {},
    examples: [['toolgate settings set activity_retention_days 30', 'keep a month of activity'], ['toolgate settings set mcp_anonymous_profile null -o json', 'refuse anonymous MCP callers; before/after as JSON']],
    exits: { 0: 'changed (on the record)', 1: EXIT_ERROR },
    run: async ({ args: [name, raw], json, db, ctx }) => {
      const [{ updateSettings }, { settingsPatchSchema }] = await Promise.all([import('@/lib/admin/settings'), import('@/lib/schemas/admin')])
      const names = Object.keys(settingsPatchSchema.shape)
      if (!names.includes(name)) throw new UsageError(`no setting named "${name}": the settings are ${names.join(', ')}`, didYouMean(lookAlike(name, names), 'toolgate settings list shows them with their values'))
      const r = await updateSettings(db(), { [name]: cliValue(raw) }, ctx)
      if (json) console.log(toJson({ changed: name, before: r.before, after: r.after, activity_id: r.activityId, request_id: r.requestId }))
      else console.log(`${name}: ${String(r.before[name as keyof typeof r.before])} → ${String(r.after[name as keyof typeof r.after])}  (activity ${r.activityId}, request_id ${r.requestId})`)
      return 0
    },
  }),
]
