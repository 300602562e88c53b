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
import { serverConfig } from '@/db/queries/servers'
import { readSettings } from '@/db/queries/settings'
import type { CallApproval } from '@/db/schema'
import { callById, claimCall, finishCall, requestCall } from '@/lib/approvals/calls'

export interface CallContext {
  db: Db
  caller: Caller
  profile: string | undefined
  requestId: string
}

/** What became of one tools/call; the MCP surface words it (lib/mcp). */
export type CallOutcome =
  | { kind: 'refused'; verdict: UnavailableResult }
  | { kind: 'answered'; result: CallToolResult; callId?: string }
  | { kind: 'failed'; error: string }
  /** under call approval: no decision yet (the request stays open), denied, or expired */
  | { kind: 'held' | 'denied' | 'expired'; call: CallApproval }

const outcomeName = (o: CallOutcome) => (o.kind === 'answered' ? (o.result.isError ? 'tool_error' : 'ok') : o.kind)

const POLL_MS = 200
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * A call of a tool under call approval: open (or join) the approval request for this exact
 * call, then wait up to the configured time for the operator. Approved, it runs once — by
 * whichever waiter claims it — and every waiter gets that one result.
 */
async function heldCall(ctx: CallContext, server: string, tool: string, args: Record<string, unknown>, supervisor: Supervisor | undefined): Promise<CallOutcome> {
  const { call } = await requestCall(ctx.db, { server, tool, args, caller: ctx.caller.name, requestId: ctx.requestId })
  const deadline = Date.now() + readSettings(ctx.db).callApprovalWaitMs
  for (;;) {
    const c = callById(ctx.db, call.id)!
    if (c.status === 'done') return { kind: 'answered', result: c.result as CallToolResult, callId: c.id }
    if (c.status === 'denied' || c.status === 'expired') return { kind: c.status, call: c }
    if (c.status === 'approved' && await claimCall(ctx.db, c.id)) {
      const conn = supervisor?.connection(server)
      let result: CallToolResult
      try {
        if (!conn) throw new Error(`no live upstream connection for server "${server}" in this toolgate process`)
        result = await conn.callTool(tool, args)
      } catch (e) {
        result = { isError: true, content: [{ type: 'text', text: `the upstream call failed: ${describeError(e)}` }] }
      }
      await finishCall(ctx.db, c.id, result)
      return { kind: 'answered', result, callId: c.id }
    }
    if (Date.now() >= deadline) return { kind: 'held', call: c }
    await sleep(POLL_MS)
  }
}

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
      if (serverConfig(ctx.db, server!)?.callApprovalTools.includes(tool)) {
        outcome = await heldCall(ctx, server!, tool, args ?? {}, supervisor)
      } else {
        try {
          outcome = { kind: 'answered', result: await conn.callTool(tool, args) }
        } catch (e) {
          outcome = { kind: 'failed', error: describeError(e) }
        }
      }
    }
  }
  try {
    await appendActivity(ctx.db, {
      requestId: ctx.requestId, type: 'tool.call', actor: ctx.caller.name, tier: ctx.caller.tier, server,
      data: {
        target: verdict.id, outcome: outcomeName(outcome),
        ...(outcome.kind === 'refused' ? { reason: outcome.verdict.reason } : {}),
        ...('call' in outcome ? { call_id: outcome.call.id } : outcome.kind === 'answered' && outcome.callId ? { call_id: outcome.callId } : {}),
        duration_ms: Date.now() - started,
      },
    })
  } catch (e) {
    // The call has already happened: failing it now would invite a retry that repeats it.
    console.error(logLine(`toolgate: tool call ${verdict.id} (request ${ctx.requestId}) ran but could not be recorded: ${describeError(e)}`))
  }
  return outcome
}
