import type { CallToolResult } from '@modelcontextprotocol/server'
import { uniqueIds } from '../preflight/ids'
import { runCheck } from '../preflight/service'
import { parseDescribeArgs } from './describe-tool-definition'
import { servedTool, toMcpTool } from './listing'
import type { McpSession } from './session'
import { wireResult } from './wire'

/** Plain mode says only "not served", whatever the cause: the reason is check mode's job. */
const NOT_SERVED = 'not served to this session (describe_tool with check: true says why)'

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
export async function describeTool(session: McpSession, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const parsed = parseDescribeArgs(args)
  if ('fault' in parsed) return fault(parsed.fault)
  if (parsed.mode === 'check') {
    const data = await runCheck(session.db, {
      caller: session.caller, surface: 'mcp-check', requestId: session.requestId, record: session.record,
      input: { ids: parsed.ids, policy: parsed.policy, profile: session.profile },
    })
    return answer({ verdict: data.verdict, checked_at: data.checked_at, request_id: data.request_id, results: data.tools.map(wireResult) })
  }
  return answer({
    tools: uniqueIds(parsed.ids).map((id) => {
      const t = servedTool(session, id)
      return t ? { id, tool: toMcpTool(t) } : { id, error: NOT_SERVED }
    }),
  })
}
