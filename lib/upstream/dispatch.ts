import 'server-only'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Db } from '@/db/client'
import { appendActivity } from '@/lib/activity/record'
import { describeError } from '@/lib/errors'
import { logLine } from '@/lib/log'
import { parseToolId } from '@/lib/preflight/ids'
import { evaluateNow } from '@/lib/preflight/service'
import { unavailable, type Caller, type UnavailableResult } from '@/lib/preflight/evaluate'
import { runningSupervisor, type Supervisor } from './supervisor'

export interface CallContext {
  db: Db
  caller: Caller
  profile: string | undefined
  requestId: string
}

/** What became of one tools/call; the MCP surface words it (lib/mcp). */
export type CallOutcome =
  | { kind: 'refused'; verdict: UnavailableResult }
  | { kind: 'answered'; result: CallToolResult }
  | { kind: 'failed'; error: string }

const outcomeName = (o: CallOutcome) => (o.kind === 'refused' ? 'refused' : o.kind === 'failed' ? 'failed' : o.result.isError ? 'tool_error' : 'ok')

/**
 * Gated dispatch of tools/call. The gate IS the preflight evaluator (same snapshot reads, same
 * classifier, same scope), so a call is refused if and only if the preflight for that id is not
 * ready, with the same reason. Only then does the call reach the live upstream connection.
 * Every call is an activity record under the caller's request_id.
 */
export async function dispatchToolCall(ctx: CallContext, id: string, args: Record<string, unknown> | undefined, supervisor: Supervisor | undefined = runningSupervisor()): Promise<CallOutcome> {
  const started = Date.now()
  const verdict = evaluateNow(ctx.db, ctx.caller, { ids: [id], profile: ctx.profile }).tools[0]
  const parsed = parseToolId(id)
  // a ready verdict means a well-formed id on a configured server
  const { server, tool } = 'malformed' in parsed ? { server: undefined, tool: '' } : parsed
  let outcome: CallOutcome
  if (verdict.status === 'unavailable') {
    outcome = { kind: 'refused', verdict }
  } else {
    const conn = server === undefined ? undefined : supervisor?.connection(server)
    if (!conn) {
      // ready by its published state, but nothing in this process can reach it
      // (a state-file server without a transport, or the connection just dropped)
      outcome = { kind: 'refused', verdict: unavailable(verdict.id, 'server_unhealthy', `no live upstream connection for server "${server}" in this toolgate process`, { server: server ?? '', tool }) }
    } else {
      try {
        outcome = { kind: 'answered', result: await conn.callTool(tool, args) }
      } catch (e) {
        outcome = { kind: 'failed', error: describeError(e) }
      }
    }
  }
  try {
    await appendActivity(ctx.db, {
      requestId: ctx.requestId, type: 'tool.call', actor: ctx.caller.name, tier: ctx.caller.tier, server,
      data: { target: verdict.id, outcome: outcomeName(outcome), ...(outcome.kind === 'refused' ? { reason: outcome.verdict.reason } : {}), duration_ms: Date.now() - started },
    })
  } catch (e) {
    // The call has already happened: failing it now would invite a retry that repeats it.
    console.error(logLine(`toolgate: tool call ${verdict.id} (request ${ctx.requestId}) ran but could not be recorded: ${describeError(e)}`))
  }
  return outcome
}
