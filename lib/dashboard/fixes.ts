import type { ToolResult } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'
import type { Fix } from './schemas'

/**
 * What a row's remediation button does, decided from the verdict's reason and action. Pure, so
 * the browser renders it and tests can check every reason has an honest answer:
 *   approve — review the full definition (and the diff, for a changed tool), then approve that pin
 *   release — review what the quarantined server would serve, then release approving those pins
 *   run     — a shared admin mutation, then a re-check (confirmed first when it lifts a deliberate block)
 *   login   — the upstream runtime's OAuth flow in this browser, returning to the same check
 *   link    — the page where the fix is made (logs to read, a secret to enter, a scope to edit)
 *   recheck — nothing to change; the state is transient
 */
export type RowFix =
  | { kind: 'approve'; id: string; label: string }
  | { kind: 'release'; server: string; label: string }
  | { kind: 'run'; fix: Fix; label: string }
  | { kind: 'login'; server: string; label: string }
  | { kind: 'link'; href: string; label: string }
  | { kind: 'recheck'; label: string }

const serverPage = (server: string) => `/servers/${encodeURIComponent(server)}`

export function fixFor(r: ToolResult, token: string | null): RowFix | null {
  if (r.status === 'ready') return null
  const p = parseToolId(r.id)
  const server = 'malformed' in p ? null : p.server
  if (server === null) return null
  switch (r.reason) {
    case 'tool_pending_approval':
      return { kind: 'approve', id: r.id, label: 'Review & approve' }
    case 'tool_changed':
      return { kind: 'approve', id: r.id, label: 'Review change' }
    case 'server_quarantined':
      return { kind: 'release', server, label: 'Review server' }
    case 'server_disabled':
      return { kind: 'run', fix: { kind: 'enable_server', server }, label: 'Enable server' }
    case 'tool_blocked_by_user':
      return { kind: 'run', fix: { kind: 'enable_tool', id: r.id }, label: 'Unblock tool' }
    case 'tool_denied_by_config':
      return { kind: 'run', fix: { kind: 'allow_tool', id: r.id }, label: 'Allow in config' }
    case 'server_initializing':
      return { kind: 'recheck', label: 'Check again' }
    case 'server_not_in_scope':
      return token
        ? { kind: 'link', href: `/tokens#token-${encodeURIComponent(token)}`, label: 'Edit token scope' }
        : { kind: 'link', href: '/tokens#profiles', label: 'Edit profile' }
    case 'missing_annotation':
    case 'hash_mismatch':
      return { kind: 'link', href: serverPage(server), label: 'Open server' }
    case 'oauth_required':
    case 'server_unhealthy':
      return connectionFix(r.action, server)
    default:
      return null // not_found, server_not_configured, policy_filtered: nothing in state to change
  }
}

/** The runtime's suggested action for a connection problem (the evaluator passes it through as `action`). */
function connectionFix(action: string | undefined, server: string): RowFix {
  switch (action) {
    case 'login': return { kind: 'login', server, label: 'Log in' }
    case 'restart': return { kind: 'run', fix: { kind: 'restart_server', server }, label: 'Restart' }
    case 'set_secret': return { kind: 'link', href: `${serverPage(server)}#secrets`, label: 'Set secret' }
    default: return { kind: 'link', href: `${serverPage(server)}#logs`, label: 'View logs' }
  }
}
