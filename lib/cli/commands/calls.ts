import { UsageError } from '@/lib/cli/args'
import { forTerminal, statusColour, table, terminal, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import type { CallStatus } from '@/db/queries/calls'
import type { changedSinceRequested } from '@/lib/approvals/calls'
import type { Db } from '@/db/client'
import type { CallApproval } from '@/db/schema'

const statuses = ['pending', 'approved', 'denied', 'expired', 'running', 'done', 'refused'] as const

/** A held call as people and scripts see it: with the pin it was requested under, and whether its tool has changed since. */
const present = (db: Db, c: CallApproval, changed: typeof changedSinceRequested) => ({
  id: c.id, status: c.status, tool: `${c.serverName}:${c.toolName}`, arguments: JSON.parse(c.arguments), arguments_hash: c.argumentsHash,
  caller: c.caller, request_id: c.requestId, created_at: new Date(c.createdAt).toISOString(), expires_at: new Date(c.expiresAt).toISOString(),
  pin: c.pin, ...(c.status === 'pending' ? { changed_since_requested: changed(db, c) } : {}),
  ...(c.decidedBy ? { decided_by: c.decidedBy, decided_at: new Date(c.decidedAt!).toISOString() } : {}), ...(c.reason ? { reason: c.reason } : {}),
  ...(c.status === 'refused' && c.result ? { refused: (c.result as { reason?: string }).reason } : {}),
})

const CALL = { name: '<call id>', what: 'call id (toolgate calls list shows them)', complete: 'call' } as const

/** approve and deny: one decision, recorded under the request that made the call (so its story reads in one place). */
const decision = (verb: 'approve' | 'deny', summary: string, flags: Command['flags'], examples: Command['examples']) => command({
  name: `calls ${verb}`, summary, args: [CALL], flags, examples,
  exits: { 0: 'decided (on the record)', 1: EXIT_ERROR },
  run: async ({ values, args: [id], json, db, ctx }) => {
    const { decideCall, changedSinceRequested } = await import('@/lib/approvals/calls')
    const { activityId, ...c } = await decideCall(db(), id, verb, ctx, { reason: values.reason as string | undefined, shownPin: values.hash as string | undefined })
    if (json) console.log(toJson({ ...present(db(), c, changedSinceRequested), before: { status: 'pending' }, after: { status: c.status }, activity_id: activityId }))
    else console.log(`${c.id} (${forTerminal(`${c.serverName}:${c.toolName}`)}): pending → ${c.status}${verb === 'approve' ? ' — it runs once, for the caller waiting on it (or its next identical retry)' : ''}  (activity ${activityId}, request_id ${c.requestId})`)
    return 0
  },
})

export const callsCommands: Command[] = [
  command({
    name: 'calls list',
    summary: 'calls held for approval, newest first: tool, caller, exact arguments, request id, expiry',
    args: [],
    flags: { status: { type: 'string', value: statuses.join('|'), default: 'every status', description: 'only calls in this status', complete: statuses } },
    examples: [['toolgate calls list --status pending', 'what is waiting for you'], ['toolgate calls list -o json', 'every held call for a script']],
    exits: { 0: 'listed', 1: EXIT_ERROR },
    run: async ({ values, json, db }) => {
      if (values.status !== undefined && !statuses.includes(values.status as CallStatus)) throw new UsageError(`--status must be one of ${statuses.join(', ')}, not "${values.status}"`)
      const [{ expireCalls, changedSinceRequested }, { listCalls }] = await Promise.all([import('@/lib/approvals/calls'), import('@/db/queries/calls')])
      await expireCalls(db())
      const rows = listCalls(db(), values.status as CallStatus | undefined).map((c) => present(db(), c, changedSinceRequested))
      if (json) console.log(toJson(rows))
      else console.log(table(['ID', 'STATUS', 'TOOL', 'CALLER', 'CREATED', 'ARGUMENTS'], rows.map((c) => [c.id, c.changed_since_requested ? `${c.status} (tool changed)` : c.status, c.tool, c.caller, c.created_at, JSON.stringify(c.arguments)]),
        terminal(), (col, cell) => (col === 1 ? statusColour(cell) : undefined)))
      return 0
    },
  }),
  decision('approve', 'approve that one call: it runs once, for the agent waiting on it (or its next identical retry), if the gate still lets it',
    { hash: { type: 'string', value: 'PIN', default: 'the pin the call was requested under', description: 'approve only if the call was requested under this pin of its tool (the one calls list printed)' } },
    [['toolgate calls approve call_3kTq9Zb1xY0a', 'let one held call run'], ['toolgate calls approve call_3kTq9Zb1xY0a -o json', 'the decision as JSON']]),
  decision('deny', 'deny that one call: the agent is told it was denied, and why', { reason: { type: 'string', value: 'R', default: 'no reason given', description: 'why, as the agent is told' } },
    [['toolgate calls deny call_3kTq9Zb1xY0a --reason "not on production"', 'refuse one held call'], ['toolgate calls deny call_3kTq9Zb1xY0a -o json', 'the decision as JSON']]),
]
