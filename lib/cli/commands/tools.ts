import { UsageError } from '@/lib/cli/args'
import { forTerminal, paint, statusColour, table, terminal, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import type { ToolReview } from '@/lib/approvals/review'
import type { BulkVerb } from '@/lib/schemas/actions'
import { preflightCommand } from './preflight'

/** A value of a definition for people: JSON, with what a terminal would act on or hide made visible. */
const shownJson = (v: unknown, indent?: number) => forTerminal(JSON.stringify(v, null, indent), { lines: true })

/** `tools show` for people: the definition, its pin and approval, the diff, findings and history. */
function reviewText(r: ToolReview): string {
  const lines = [
    `${forTerminal(r.id)}  ${paint(terminal(), statusColour(r.status), r.status)}`,
    `pin:       ${r.pin ?? '(none)'}`,
    `approval:  ${r.approval.status !== 'none' ? r.approval.status : r.status === 'server_quarantined' ? 'none yet (releasing the server approves it as shown)' : 'none recorded (implicitly approved)'}${r.approval.blocked ? ', blocked by an operator' : ''}${r.approval.approved_pin && r.approval.approved_pin !== r.pin ? ` (approved pin ${r.approval.approved_pin})` : ''}`,
    `call approval: ${r.call_approval ? 'on (every call waits for an operator)' : 'off'}`,
    '',
    `definition (as agents are served it, named ${forTerminal(r.id)}):`,
    shownJson(r.definition, 2).split('\n').map((l) => `  ${l}`).join('\n'),
  ]
  if (r.changes.length) {
    lines.push('', 'what changed, riskiest first:')
    for (const c of r.changes) lines.push(forTerminal(`  [${c.risk}] ${c.summary}  (${c.path})`))
  }
  if (r.diff.length) {
    lines.push('', 'changed since approved, field by field:')
    for (const d of r.diff) lines.push(`  ${forTerminal(d.field)}:`, `    − ${shownJson(d.before)}`, `    + ${shownJson(d.after)}`)
  }
  lines.push('', r.findings.length ? 'review findings:' : 'review findings: none')
  for (const f of r.findings) lines.push(forTerminal(`  ${f.code} (${f.field}): ${f.message}`))
  if (r.history.length) {
    lines.push('', 'history:')
    for (const h of r.history) lines.push(forTerminal(`  ${h.at}  ${h.type}  ${h.actor}${'note' in h.data && h.data.note ? `  ${h.data.note}` : ''}`))
  }
  return lines.join('\n')
}

const TOOL = { name: '<server:tool>', what: 'tool id (<server>:<tool>)', complete: 'tool' } as const
const CHANGED = { 0: 'the change was made (before → after, on the record)', 1: EXIT_ERROR }

/** approve, block and enable: one approval change, printed before → after. */
const approvalChange = (verb: BulkVerb, summary: string, flags: Command['flags'], examples: Command['examples'], details?: string) => command({
  name: `tools ${verb}`, summary, details, args: [TOOL], flags, examples, exits: CHANGED,
  run: async ({ values, args: [id], json, db, ctx }) => {
    const { approveTool, blockTool, enableTool } = await import('@/lib/admin/tools')
    const r = verb === 'approve' ? await approveTool(db(), id, ctx, { hash: values.hash as string | undefined, confirm: values.yes as boolean | undefined })
      : verb === 'enable' ? await enableTool(db(), id, ctx, { confirm: values.yes as boolean | undefined })
        : await blockTool(db(), id, ctx)
    const fmt = (s: typeof r.before) => `${s.status === 'none' ? 'no record (implicitly approved)' : s.status}${s.disabled ? ', blocked' : ''}`
    if (json) console.log(toJson({ id: r.id, before: r.before, after: r.after, pin: r.pin, activity_id: r.activityId, request_id: r.requestId }))
    else console.log(`${r.id}: ${fmt(r.before)} → ${fmt(r.after)}${verb === 'approve' ? `  pin ${r.pin}` : ''}  (activity ${r.activityId}, request_id ${r.requestId})`)
    return 0
  },
})

export const toolsCommands: Command[] = [
  preflightCommand,
  command({
    name: 'tools list',
    summary: 'every known tool with its status, approval, connection and pin',
    args: [],
    flags: { server: { type: 'string', value: 'NAME', default: 'every server', description: 'only this server\'s tools', complete: 'server' } },
    examples: [['toolgate tools list', 'every tool, one line each'], ['toolgate tools list --server notes -o json', 'one server\'s tools for a script']],
    exits: { 0: 'listed', 1: EXIT_ERROR },
    run: async ({ values, json, db }) => {
      const { toolInventory } = await import('@/lib/catalog/inventory')
      const rows = toolInventory(db(), values.server)
      if (json) console.log(toJson(rows))
      else console.log(table(['ID', 'STATUS', 'APPROVAL', 'CONNECTION', 'PIN'], rows.map((r) => [r.id, r.status, r.approval + (r.blocked ? '+blocked' : ''), r.connection, r.pin ?? '-']),
        terminal(), (col, cell) => (col === 1 ? statusColour(cell) : undefined)))
      return 0
    },
  }),
  command({
    name: 'tools show',
    summary: 'the definition agents would be served, its pin and approval, the diff of a changed tool, review findings, history',
    args: [TOOL],
    flags: {},
    examples: [['toolgate tools show notes:share_note', 'review a changed tool field by field'], ['toolgate tools show notes:read_note -o json | jq -r .pin', 'the pin to approve with --hash']],
    exits: { 0: 'shown', 1: EXIT_ERROR },
    run: async ({ args: [id], json, db }) => {
      const { toolReview } = await import('@/lib/approvals/review')
      const review = toolReview(db(), id)
      console.log(json ? toJson(review) : reviewText(review))
      return 0
    },
  }),
  approvalChange('approve', 'approve the tool\'s current definition (pending or changed)',
    {
      hash: { type: 'string', value: 'PIN', default: 'the current definition', description: 'approve only if the definition still has this pin (the one tools show printed)' },
      yes: { type: 'boolean', short: 'y', description: 'approve even though it reads like a served tool beyond max_description_overlap (the refusal names the pair)' },
    },
    [['toolgate tools approve notes:export_notes', 'approve what the server lists now'],
      ['toolgate tools approve notes:share_note --hash "$(toolgate tools show notes:share_note -o json | jq -r .pin)"', 'approve exactly the definition you reviewed'],
      ['toolgate tools approve notes:export_notes -o json', 'before/after, activity_id and request_id for a script']]),
  approvalChange('block', 'block the tool: withheld from every agent, whatever its server\'s trust', {},
    [['toolgate tools block notes:purge_notes', 'withhold one tool'], ['toolgate tools block notes:purge_notes -o json', 'the change as JSON']]),
  approvalChange('enable', 'lift a block', { yes: { type: 'boolean', short: 'y', description: 'confirm unblocking a tool annotated destructive (it was blocked on purpose)' } },
    [['toolgate tools enable notes:read_note', 'lift a block'], ['toolgate tools enable notes:purge_notes --yes', 'unblock a destructive tool']],
    'A tool annotated destructive needs --yes.'),
  command({
    name: 'tools call-approval',
    summary: 'hold every call of the tool for an operator\'s approval of that exact call (on), or stop (off)',
    args: [TOOL, { name: 'on|off', what: 'on or off', complete: ['on', 'off'] }],
    flags: {},
    examples: [['toolgate tools call-approval notes:delete_note on', 'every call waits for toolgate calls approve'], ['toolgate tools call-approval notes:delete_note off -o json', 'back to calls running at once']],
    exits: CHANGED,
    run: async ({ args: [id, onOff], json, db, ctx }) => {
      if (onOff !== 'on' && onOff !== 'off') throw new UsageError(`expected on or off, not "${onOff}"`)
      const { setCallApproval } = await import('@/lib/admin/server-settings')
      const r = await setCallApproval(db(), id, onOff === 'on', ctx)
      if (json) console.log(toJson({ id: r.id, before: r.before, after: r.after, activity_id: r.activityId, request_id: r.requestId }))
      else console.log(`${r.id}: call approval ${r.before.call_approval ? 'on' : 'off'} → ${r.after.call_approval ? 'on' : 'off'}  (activity ${r.activityId}, request_id ${r.requestId})`)
      return 0
    },
  }),
]
