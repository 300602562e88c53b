import type { ApprovalView, ServerView, ToolView } from '@/lib/core/state'

/**
 * The shared tool classifier (contract §4). Call-time dispatch uses `classify`, the evaluator
 * uses the two halves with existence and scope checks between them, so preflight and
 * dispatch cannot disagree on a policy gate.
 *
 *   not configured → quarantined → disabled → denied by config → blocked by user
 *   → changed → pending → callable
 */
export type ServerGate = 'server_not_configured' | 'server_quarantined' | 'server_disabled'
export type ToolGate = 'tool_denied_by_config' | 'tool_blocked_by_user' | 'tool_changed' | 'tool_pending_approval'
export type Classification = ServerGate | ToolGate | 'callable'

export function classifyServer(server: ServerView | undefined): ServerGate | 'ok' {
  if (!server) return 'server_not_configured'
  if (server.quarantined) return 'server_quarantined'
  if (!server.enabled) return 'server_disabled'
  return 'ok'
}

export function isDeniedByConfig(server: ServerView, toolName: string): boolean {
  return server.disabledTools.includes(toolName) || (server.enabledTools !== null && !server.enabledTools.includes(toolName))
}

export function classifyTool(
  server: ServerView,
  toolName: string,
  tool: Pick<ToolView, 'approval'> | undefined,
  quarantineEnabled: boolean,
): ToolGate | 'callable' {
  if (isDeniedByConfig(server, toolName)) return 'tool_denied_by_config'
  const approval = tool?.approval
  if (!approval) return 'callable' // no record = implicitly approved
  if (approval.disabled) return 'tool_blocked_by_user' // a user block applies even on auto servers
  // the approval gate applies only with the global gate on and a server that is not auto-trusted
  if (quarantineEnabled && server.trust !== 'auto') {
    if (approval.status === 'changed') return 'tool_changed'
    if (approval.status === 'pending') return 'tool_pending_approval'
  }
  return 'callable'
}

export function classify(
  server: ServerView | undefined,
  toolName: string,
  tool: Pick<ToolView, 'approval'> | undefined,
  quarantineEnabled: boolean,
): Classification {
  const s = classifyServer(server)
  if (s !== 'ok') return s
  return classifyTool(server!, toolName, tool, quarantineEnabled)
}

/** The served listing's test: the classifier says callable (the same judgement dispatch makes). */
export const isCallable = (server: ServerView | undefined, tool: string, approval: ApprovalView | null, quarantineEnabled: boolean): boolean =>
  classify(server, tool, { approval }, quarantineEnabled) === 'callable'
