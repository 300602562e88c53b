import { cliActor, one, openCliDb, outputFormat, parse, UsageError } from '@/lib/cli/args'
import { table } from '@/lib/cli/output'
import { toolInventory } from '@/lib/catalog/inventory'
import { approveTool, blockTool, enableTool } from '@/lib/admin/tools'

const mutations = { approve: approveTool, block: blockTool, enable: enableTool }

export async function toolsCommand(sub: string | undefined, argv: string[]): Promise<number> {
  if (sub === 'list') {
    const { values } = parse(argv, { server: { type: 'string' } })
    const rows = toolInventory(openCliDb(values.db), values.server)
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(rows, null, 2))
    else console.log(table(['ID', 'STATUS', 'APPROVAL', 'CONNECTION', 'PIN'], rows.map((r) => [r.id, r.status, r.approval + (r.blocked ? '+blocked' : ''), r.connection, r.pin ?? '-'])))
    return 0
  }
  if (sub === 'approve' || sub === 'block' || sub === 'enable') {
    const { values, positionals } = parse(argv, {})
    const r = await mutations[sub](openCliDb(values.db), one(positionals, 'tool id (<server>:<tool>)'), { actor: cliActor() })
    const fmt = (s: typeof r.before) => `${s.status}${s.disabled ? ', blocked' : ''}`
    console.log(`${r.id}: ${fmt(r.before)} → ${fmt(r.after)}  (activity ${r.activityId}, request_id ${r.requestId})`)
    return 0
  }
  throw new UsageError('usage: toolgate tools preflight|list|approve|block|enable ...')
}
