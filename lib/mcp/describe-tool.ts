import 'server-only'
import type { CallToolResult, Tool } from '@modelcontextprotocol/server'
import type { Policy } from '@/lib/core/state'
import { idBoundsFault, MAX_CHECK_IDS, parseToolId, uniqueIds } from '@/lib/preflight/ids'
import { describeArgsSchema as argsSchema } from '@/lib/schemas/mcp'
import { evaluateNow, runCheck } from '@/lib/gate/check'
import type { Reason } from '@/lib/preflight/taxonomy'
import { issuePath } from '@/lib/schemas/issues'
import { MAX_DESCRIBE_IDS, servedTool, toMcpTool } from '@/lib/catalog/listing'
import { invalidParams } from './errors'
import type { McpContext } from './context'
import { wireResult } from './wire'

export type DescribeArgs =
  | { mode: 'describe'; ids: string[] }
  | { mode: 'check'; ids: string[]; policy?: Policy }

/** Validate describe_tool's arguments; returns the fault (a tool error) or the request. */
export function parseDescribeArgs(raw: Record<string, unknown> | undefined): DescribeArgs | { fault: string } {
  const args = raw ?? {}
  // Hash pinning stays on REST at the operator tier (seed "Reserved fields"), in any form.
  if ('expect_hashes' in args) return { fault: 'expect_hashes is reserved: hash pins are not accepted in band' }
  if ('check' in args && typeof args.check !== 'boolean') return { fault: 'check must be a boolean' }
  const check = args.check === true
  if (Array.isArray(args.tool_ids)) {
    const max = check ? MAX_CHECK_IDS : MAX_DESCRIBE_IDS
    // Caps count the raw array, before trimming and de-duplication (contract §1).
    if (args.tool_ids.length > max) return { fault: `too many tool_ids: ${args.tool_ids.length} (max ${max} ${check ? 'with' : 'without'} check:true)` }
  }
  const parsed = argsSchema.safeParse(args)
  if (!parsed.success) {
    return { fault: parsed.error.issues.map((i) => (i.path.length ? `${issuePath('', i.path)} ${i.message}` : i.message)).join('; ') }
  }
  const { tool_ids, filters } = parsed.data
  // An overlong id is a request error on every surface (JSON-RPC -32602 in band), not a tool error.
  const tooLong = tool_ids.map(idBoundsFault).find((f) => f !== null)
  if (tooLong) throw invalidParams(`describe_tool: ${tooLong}`)
  if (filters !== undefined && !check) return { fault: 'filters requires check: true' }
  return check ? { mode: 'check', ids: tool_ids, ...(filters ? { policy: filters } : {}) } : { mode: 'describe', ids: tool_ids }
}

/**
 * Plain mode's per-id error codes, as the reference implementation names them (contract §11):
 * the gate that withholds a known tool, else not_found — out of scope and unconfigured included.
 */
const plainCodes: Partial<Record<Reason, string>> = {
  server_quarantined: 'quarantined', server_disabled: 'disabled', tool_denied_by_config: 'disabled',
  tool_blocked_by_user: 'disabled', tool_changed: 'changed', tool_pending_approval: 'pending_approval',
}
const NOT_FOUND_REMEDIATION = 'Tool not found or no longer available; list tools again.'
const MALFORMED_REMEDIATION = "Tool ids must be '<server>:<tool>', exactly as listed."

function answer(body: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body }
}

/** A request fault is a tool error, and nothing was evaluated or recorded (contract §11). */
function fault(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `describe_tool: ${message} (no verdict was computed)` }], isError: true }
}

/**
 * describe_tool. Check mode goes through the one evaluation seam at the agent tier with the
 * session's scope, so its verdicts equal REST's and the CLI's; its request_id is the activity
 * record's. A failed read or record write throws, and the carrier answers -32603.
 */
export async function describeTool(session: McpContext, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const parsed = parseDescribeArgs(args)
  if ('fault' in parsed) return fault(parsed.fault)
  if (parsed.mode === 'check') {
    const data = await runCheck(session.db, {
      caller: session.caller, surface: 'mcp-check', requestId: session.requestId, record: session.record,
      input: { ids: parsed.ids, policy: parsed.policy, profile: session.profile },
    })
    return answer({ verdict: data.verdict, checked_at: data.checked_at, request_id: data.request_id, results: data.tools.map(wireResult) })
  }
  // Plain mode: the served definitions, and for every other id why it is not served. Read-only.
  const definitions: Tool[] = []
  const unserved: string[] = []
  for (const id of uniqueIds(parsed.ids)) {
    const t = servedTool(session, id)
    if (t) definitions.push(toMcpTool(t))
    else unserved.push(id)
  }
  const verdicts = unserved.length ? evaluateNow(session.db, session.caller, { ids: unserved, profile: session.profile }).tools : []
  const errors = verdicts.map((v) => {
    const code = v.status === 'unavailable' ? plainCodes[v.reason] : undefined
    if (v.status === 'unavailable' && code) return { id: v.id, error: code, remediation: v.remediation }
    return { id: v.id, error: 'not_found', remediation: 'malformed' in parseToolId(v.id) ? MALFORMED_REMEDIATION : NOT_FOUND_REMEDIATION }
  })
  return answer({ definitions, errors })
}
