import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Db } from '../../db/client'
import { appendActivity } from '../activity/record'
import { describeError } from '../errors'
import { parseToolId } from '../preflight/ids'
import { evaluateNow } from '../preflight/service'
import { taxonomy } from '../preflight/taxonomy'
import type { Caller, UnavailableResult } from '../preflight/evaluate'
import { runningSupervisor, type Supervisor } from './supervisor'

export const EXTENSION_ID = 'app.mcpproxy/required-tools'

export interface CallContext {
  db: Db
  caller: Caller
  profile: string | undefined
  requestId: string
}

/** A refused call: a tool error carrying the verdict preflight gives for the same id. */
function refusal(v: Omit<UnavailableResult, 'id' | 'did_you_mean'>): CallToolResult {
  const facet = { status: 'unavailable', reason: v.reason, retryable: v.retryable, ...(v.action ? { action: v.action } : {}), detail: v.detail, remediation: v.remediation }
  return {
    isError: true,
    content: [{ type: 'text', text: `unavailable (${v.reason}): ${v.detail}. Fix: ${v.remediation}` }],
    structuredContent: facet,
    _meta: { [EXTENSION_ID]: facet },
  }
}

/**
 * Gated dispatch of tools/call. The gate IS the preflight evaluator (same snapshot reads, same
 * classifier, same scope), so a call is refused if and only if the preflight for that id is not
 * ready, with the same reason. Only then does the call reach the live upstream connection.
 * Every call is an activity record under the caller's request_id.
 */
export async function dispatchToolCall(ctx: CallContext, id: string, args: Record<string, unknown> | undefined, supervisor: Supervisor | undefined = runningSupervisor()): Promise<CallToolResult> {
  const started = Date.now()
  const verdict = evaluateNow(ctx.db, ctx.caller, { ids: [id], profile: ctx.profile }).tools[0]
  let result: CallToolResult
  let outcome: 'ok' | 'tool_error' | 'refused' | 'failed'
  let reason: string | undefined
  const parsed = parseToolId(id)
  const server = 'malformed' in parsed ? undefined : parsed.server
  if (verdict.status === 'unavailable') {
    result = refusal(verdict)
    outcome = 'refused'
    reason = verdict.reason
  } else {
    const conn = server ? supervisor?.connection(server) : undefined
    if (!conn || 'malformed' in parsed) {
      // ready by its published state, but nothing in this process can reach it
      // (a state-file server without a transport, or the connection just dropped)
      reason = 'server_unhealthy'
      outcome = 'refused'
      result = refusal({
        status: 'unavailable', reason: 'server_unhealthy', retryable: true, action: 'view_logs',
        detail: `no live upstream connection for server "${server}" in this toolgate process`,
        remediation: taxonomy.server_unhealthy.remediation({ id, server: server ?? '', tool: '' }),
      })
    } else {
      try {
        result = await conn.callTool(parsed.tool, args)
        outcome = result.isError ? 'tool_error' : 'ok'
      } catch (e) {
        outcome = 'failed'
        result = { isError: true, content: [{ type: 'text', text: `the upstream call failed: ${describeError(e)}` }] }
      }
    }
  }
  try {
    await appendActivity(ctx.db, {
      requestId: ctx.requestId, type: 'tool.call', actor: ctx.caller.name, tier: ctx.caller.tier, server,
      data: { target: verdict.id, outcome, ...(reason ? { reason } : {}), duration_ms: Date.now() - started },
    })
  } catch (e) {
    // The call has already happened: failing it now would invite a retry that repeats it.
    console.error(`toolgate: tool call ${verdict.id} (request ${ctx.requestId}) ran but could not be recorded: ${describeError(e)}`)
  }
  return result
}
