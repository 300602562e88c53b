import { paint, statusColour, table, terminal } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command, type Group } from '@/lib/cli/spec'
import type { DefinitionReview } from '@/lib/approvals/review'
import { showInvisible } from '@/lib/approvals/findings'
import { definitionGroups, type DefinitionGroup } from '@/lib/approvals/server-definitions'

const toJson = (v: unknown) => JSON.stringify(v, null, 2)

/** `<group> show` for people: the definition offered now, its pin and approval, the diff, findings and history. */
function reviewText(r: DefinitionReview): string {
  const lines = [
    `${r.id}  ${paint(terminal(), statusColour(r.status), r.status)}${r.served ? '' : '  (not served to agents)'}`,
    `kind:      ${r.kind}`,
    `pin:       ${r.pin}`,
    `approved:  ${r.approved_pin ?? '(nothing yet)'}`,
    '',
    'definition (as its server offers it now; approving accepts exactly this):',
    showInvisible(toJson(r.definition)).split('\n').map((l) => `  ${l}`).join('\n'),
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

/**
 * list, show and approve for one group of a server's definitions: the same three commands, read
 * from the same review, for instructions, prompts and resources alike (see docs/approvals.md).
 */
function groupCommands(group: DefinitionGroup, examples: { list: string; id: string }): Command[] {
  const g = definitionGroups[group]
  const ID = { name: g.id, what: `${g.noun} id (${g.id})`, ...(group === 'instructions' ? { complete: 'server' as const } : {}) }
  return [
    command({
      name: `${group} list`,
      summary: `every known ${g.noun} with its approval, whether agents are served it, and its pin`,
      args: [],
      flags: { server: { type: 'string', value: 'NAME', default: 'every server', description: `only this server's`, complete: 'server' } },
      examples: [[`toolgate ${group} list`, examples.list], [`toolgate ${group} list --server notes -o json`, 'one server\'s, for a script']],
      exits: { 0: 'listed', 1: EXIT_ERROR },
      run: async ({ values, json, db }) => {
        const { definitionRows } = await import('@/lib/approvals/review')
        const rows = definitionRows(db(), group, values.server)
        if (json) console.log(toJson(rows))
        else console.log(table(['ID', 'KIND', 'STATUS', 'SERVED', 'PIN'], rows.map((r) => [showInvisible(r.id), r.kind, r.status, r.served ? 'yes' : 'no', r.pin]),
          terminal(), (col, cell) => (col === 2 ? statusColour(cell) : undefined)))
        return 0
      },
    }),
    command({
      name: `${group} show`,
      summary: `the ${g.noun} as its server offers it now, its pin and approval, what changed since approved, review findings, history`,
      args: [ID],
      flags: {},
      examples: [[`toolgate ${group} show ${examples.id}`, 'review it before approving'], [`toolgate ${group} show ${examples.id} -o json | jq -r .pin`, 'the pin to approve with --hash']],
      exits: { 0: 'shown', 1: EXIT_ERROR },
      run: async ({ args: [id], json, db }) => {
        const { definitionReview } = await import('@/lib/approvals/review')
        const review = definitionReview(db(), group, id)
        console.log(json ? toJson(review) : reviewText(review))
        return 0
      },
    }),
    command({
      name: `${group} approve`,
      summary: `approve the ${g.noun} as its server offers it now (new, changed, or seen in an inspection): agents are served exactly that`,
      args: [ID],
      flags: { hash: { type: 'string', value: 'PIN', default: 'the current definition', description: `approve only if it still has this pin (the one ${group} show printed)` } },
      examples: [[`toolgate ${group} approve ${examples.id}`, 'approve what the server offers now'],
        [`toolgate ${group} approve ${examples.id} --hash "$(toolgate ${group} show ${examples.id} -o json | jq -r .pin)"`, 'approve exactly what you reviewed']],
      exits: { 0: 'approved (before → after, on the record)', 1: EXIT_ERROR },
      run: async ({ values, args: [id], json, db, ctx }) => {
        const { approveDefinition } = await import('@/lib/admin/definitions')
        const r = await approveDefinition(db(), group, id, ctx, { hash: values.hash as string | undefined })
        if (json) console.log(toJson({ id: r.id, kind: r.kind, before: r.before, after: r.after, activity_id: r.activityId, request_id: r.requestId }))
        else console.log(`${r.id}: ${r.before.status} → ${r.after.status}  pin ${r.after.pin}  (activity ${r.activityId}, request_id ${r.requestId})`)
        return 0
      },
    }),
  ]
}

export const definitionGroupsHelp: Group[] = [
  { name: 'prompts', summary: 'the upstreams\' prompts: reviewed, pinned and approved as tools are' },
  { name: 'resources', summary: 'the upstreams\' resources and resource templates: reviewed, pinned and approved as tools are' },
  { name: 'instructions', summary: 'the upstreams\' server instructions: reviewed, pinned and approved as tools are' },
]

export const definitionsCommands: Command[] = [
  ...groupCommands('prompts', { list: 'every prompt, served or awaiting review', id: 'notes:summarize' }),
  ...groupCommands('resources', { list: 'every resource and resource template', id: "'toolgate://notes/notes://readme'" }),
  ...groupCommands('instructions', { list: 'every server\'s instructions', id: 'notes' }),
]
