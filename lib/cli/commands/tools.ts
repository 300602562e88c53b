import { cliActor, one, openCliDb, outputFormat, parse, UsageError } from '@/lib/cli/args'
import { table } from '@/lib/cli/output'
import { toolInventory } from '@/lib/catalog/inventory'
import { approveTool, blockTool, enableTool } from '@/lib/admin/tools'
import { setCallApproval } from '@/lib/admin/server-settings'
import { toolReview, type ToolReview } from '@/lib/approvals/review'
import { showInvisible } from '@/lib/approvals/findings'

const USAGE = `usage:
  toolgate tools preflight <server:tool>... [flags]
  toolgate tools list [--server S] [-o json]
  toolgate tools show <server:tool> [-o json]
  toolgate tools approve <server:tool> [--hash <pin>]
  toolgate tools block <server:tool>
  toolgate tools enable <server:tool> [--yes]
  toolgate tools call-approval <server:tool> on|off`

const json = (v: unknown) => JSON.stringify(v, null, 2)

/** `tools show` for people: the definition, its pin and approval, the diff, findings and history. */
function reviewText(r: ToolReview): string {
  const lines = [
    `${r.id}  ${r.status}`,
    `pin:       ${r.pin ?? '(none)'}`,
    `approval:  ${r.approval.status}${r.approval.blocked ? ', blocked by an operator' : ''}${r.approval.approved_pin && r.approval.approved_pin !== r.pin ? ` (approved pin ${r.approval.approved_pin})` : ''}`,
    `call approval: ${r.call_approval ? 'on (every call waits for an operator)' : 'off'}`,
    '',
    'definition (as agents are served it, named ' + r.id + '):',
    showInvisible(json(r.definition)).split('\n').map((l) => `  ${l}`).join('\n'),
  ]
  if (r.diff.length) {
    lines.push('', 'changed since approved:')
    for (const d of r.diff) lines.push(`  ${d.field}:`, `    − ${showInvisible(JSON.stringify(d.before))}`, `    + ${showInvisible(JSON.stringify(d.after))}`)
  }
  lines.push('', r.findings.length ? 'review findings:' : 'review findings: none')
  for (const f of r.findings) lines.push(`  ${f.code} (${f.field}): ${f.message}`)
  if (r.history.length) {
    lines.push('', 'history:')
    for (const h of r.history) lines.push(`  ${h.at}  ${h.type}  ${h.actor}${'note' in h.data && h.data.note ? `  ${h.data.note}` : ''}`)
  }
  return lines.join('\n')
}

export async function toolsCommand(sub: string | undefined, argv: string[]): Promise<number> {
  const actor = { actor: cliActor() }
  if (sub === 'list') {
    const { values } = parse(argv, { server: { type: 'string' } })
    const rows = toolInventory(openCliDb(values.db), values.server)
    if (outputFormat(values.output) === 'json') console.log(json(rows))
    else console.log(table(['ID', 'STATUS', 'APPROVAL', 'CONNECTION', 'PIN'], rows.map((r) => [r.id, r.status, r.approval + (r.blocked ? '+blocked' : ''), r.connection, r.pin ?? '-'])))
    return 0
  }
  if (sub === 'show') {
    const { values, positionals } = parse(argv, {})
    const review = toolReview(openCliDb(values.db), one(positionals, 'tool id (<server>:<tool>)'))
    console.log(outputFormat(values.output) === 'json' ? json(review) : reviewText(review))
    return 0
  }
  if (sub === 'approve' || sub === 'block' || sub === 'enable') {
    const { values, positionals } = parse(argv, { hash: { type: 'string' }, yes: { type: 'boolean', short: 'y' } })
    const id = one(positionals, 'tool id (<server>:<tool>)')
    const db = openCliDb(values.db)
    const r = sub === 'approve' ? await approveTool(db, id, actor, { hash: values.hash })
      : sub === 'enable' ? await enableTool(db, id, actor, { confirm: values.yes })
        : await blockTool(db, id, actor)
    const fmt = (s: typeof r.before) => `${s.status}${s.disabled ? ', blocked' : ''}`
    if (outputFormat(values.output) === 'json') console.log(json({ id: r.id, before: r.before, after: r.after, pin: r.pin, activity_id: r.activityId, request_id: r.requestId }))
    else console.log(`${r.id}: ${fmt(r.before)} → ${fmt(r.after)}${sub === 'approve' ? `  pin ${r.pin}` : ''}  (activity ${r.activityId}, request_id ${r.requestId})`)
    return 0
  }
  if (sub === 'call-approval') {
    const { values, positionals } = parse(argv, {})
    if (positionals.length !== 2 || !['on', 'off'].includes(positionals[1])) throw new UsageError('usage: toolgate tools call-approval <server:tool> on|off')
    const r = await setCallApproval(openCliDb(values.db), positionals[0], positionals[1] === 'on', actor)
    if (outputFormat(values.output) === 'json') console.log(json({ id: r.id, before: r.before, after: r.after, activity_id: r.activityId, request_id: r.requestId }))
    else console.log(`${r.id}: call approval ${r.before.call_approval ? 'on' : 'off'} → ${r.after.call_approval ? 'on' : 'off'}  (activity ${r.activityId}, request_id ${r.requestId})`)
    return 0
  }
  throw new UsageError(USAGE)
}
