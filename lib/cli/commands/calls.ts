import { cliActor, one, openCliDb, outputFormat, parse, UsageError } from '@/lib/cli/args'
import { table } from '@/lib/cli/output'
import { decideCall, expireCalls, listCalls, type CallStatus } from '@/lib/approvals/calls'
import type { CallApproval } from '@/db/schema'

const USAGE = `usage:
  toolgate calls list [--status pending|approved|denied|expired|running|done] [-o json]
  toolgate calls approve <call id>
  toolgate calls deny <call id> [--reason R]`

const statuses = ['pending', 'approved', 'denied', 'expired', 'running', 'done'] as const

/** A held call as people and scripts see it. */
const present = (c: CallApproval) => ({
  id: c.id, status: c.status, tool: `${c.serverName}:${c.toolName}`, arguments: JSON.parse(c.arguments), arguments_hash: c.argumentsHash,
  caller: c.caller, request_id: c.requestId, created_at: new Date(c.createdAt).toISOString(), expires_at: new Date(c.expiresAt).toISOString(),
  ...(c.decidedBy ? { decided_by: c.decidedBy, decided_at: new Date(c.decidedAt!).toISOString() } : {}), ...(c.reason ? { reason: c.reason } : {}),
})

export async function callsCommand(sub: string | undefined, argv: string[]): Promise<number> {
  if (sub === 'list') {
    const { values } = parse(argv, { status: { type: 'string' } })
    if (values.status !== undefined && !statuses.includes(values.status as CallStatus)) throw new UsageError(`--status must be one of ${statuses.join(', ')}, not "${values.status}"`)
    const db = openCliDb(values.db)
    await expireCalls(db)
    const rows = listCalls(db, values.status as CallStatus | undefined).map(present)
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(rows, null, 2))
    else console.log(table(['ID', 'STATUS', 'TOOL', 'CALLER', 'CREATED', 'ARGUMENTS'], rows.map((c) => [c.id, c.status, c.tool, c.caller, c.created_at, JSON.stringify(c.arguments)])))
    return 0
  }
  if (sub === 'approve' || sub === 'deny') {
    const { values, positionals } = parse(argv, { reason: { type: 'string' } })
    if (sub === 'approve' && values.reason !== undefined) throw new UsageError('--reason goes with deny')
    const c = await decideCall(openCliDb(values.db), one(positionals, 'call id'), sub, { actor: cliActor() }, values.reason)
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(present(c), null, 2))
    else console.log(`${c.id} (${c.serverName}:${c.toolName}): ${c.status}${sub === 'approve' ? ' — it runs once, for the caller waiting on it (or its next identical retry)' : ''}`)
    return 0
  }
  throw new UsageError(USAGE)
}
