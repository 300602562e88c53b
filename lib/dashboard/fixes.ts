import type { Narrowing, ToolResult } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'
import type { Fix } from '@/lib/schemas/dashboard'

/**
 * What toolgate can do to a server's connection, decided from facts rather than hoped for:
 * only a server with a transport is run by the upstream runtime (so only it restarts and has
 * logs), and only an HTTP server using an operator's login can be logged in to.
 */
export interface ServerFacts {
  /** 'http' / 'stdio': the runtime manages it; null: its state comes from a state file */
  transport: 'http' | 'stdio' | null
  /** the server gets its OAuth tokens by itself (client credentials): nobody logs in */
  clientCredentials: boolean
}

export const canRestart = (f: ServerFacts) => f.transport !== null
export const canLogin = (f: ServerFacts) => f.transport === 'http' && !f.clientCredentials

/** What the operator can do when toolgate itself cannot act on the server's connection. */
export function connectionAdvice(server: string, f: ServerFacts): string {
  if (f.transport === null) {
    return `toolgate does not run ${server}: it has no transport, and its connection state comes from a state file. Fix the server where it runs, then load its new state (toolgate state load <file>), or give it a transport (toolgate upstream add).`
  }
  if (f.transport === 'stdio') {
    return `${server} is a stdio server: it has no OAuth login. It reads its credentials from its environment: set its secret on the server page, then restart it.`
  }
  return `${server} gets its tokens by itself (client credentials): nobody logs in. If it cannot connect, its log says why.`
}

/**
 * What to do about an inspection that failed, read from why it failed and what the server lacks,
 * and where on its page that is done. Every answer ends in inspecting again: only that shows it worked.
 */
export function inspectionFix(server: string, error: string, f: ServerFacts, missingSecrets: string[]): { text: string; href: string; label: string } {
  if (missingSecrets.length) {
    const one = missingSecrets.length === 1
    return { text: `It has no value for secret${one ? '' : 's'} ${missingSecrets.join(', ')}: set ${one ? 'it' : 'them'} under Secrets, then inspect again.`, href: '#secrets', label: 'Secrets' }
  }
  if (/\bENOENT\b/.test(error)) return { text: `Its command was not found on this machine: install it, or give ${server} the right command (toolgate upstream add replaces its transport), then inspect again.`, href: '#logs', label: 'Its log' }
  if (/\b401\b|unauthorized/i.test(error) && canLogin(f)) return { text: 'It asks for a login: log in under Connection health, then inspect again.', href: '#connection', label: 'Connection health' }
  if (/ECONNREFUSED|ENOTFOUND|fetch failed/.test(error)) return { text: 'Nothing answered at its URL: start the server or correct its URL, then inspect again.', href: '#logs', label: 'Its log' }
  return { text: 'Its log shows what it printed while it was inspected: fix what it says, then inspect again.', href: '#logs', label: 'Its log' }
}

/**
 * What a row's remediation button does, decided from the verdict's reason and action and the
 * facts about its server. Pure, so tests can check every reason has an honest answer:
 *   approve — review the full definition (and the diff, for a changed tool), then approve that pin
 *   release — review what the quarantined server would serve, then release approving those pins
 *   run     — a shared admin mutation, then a re-check (confirmed first when it lifts a deliberate block)
 *   login   — the upstream runtime's OAuth flow in this browser, returning to the same check
 *   link    — the page where the fix is made (logs to read, a secret to enter, a scope to edit)
 *   recheck — nothing to change; the state is transient
 *   advice  — nothing toolgate can do from here: what the operator can do instead
 */
export type RowFix =
  | { kind: 'approve'; id: string; label: string }
  | { kind: 'release'; server: string; label: string }
  | { kind: 'run'; fix: Fix; label: string }
  | { kind: 'login'; server: string; label: string }
  | { kind: 'link'; href: string; label: string }
  | { kind: 'recheck'; label: string }
  | { kind: 'advice'; text: string }

export interface FixContext {
  /** the server's facts; undefined when it is not configured */
  facts: ServerFacts | undefined
  /** for server_not_in_scope: the narrowing that excludes the server */
  narrowing: Narrowing | null
}

const serverPage = (server: string) => `/servers/${encodeURIComponent(server)}`
export const tokenPage = (token: string) => `/tokens/${encodeURIComponent(token)}`
export const profileAnchor = (profile: string) => `/tokens#profile-${encodeURIComponent(profile)}`

export function fixFor(r: ToolResult, ctx: FixContext): RowFix | null {
  if (r.status === 'ready') return null
  const p = parseToolId(r.id)
  if ('malformed' in p) return null
  const { server } = p
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
      return ctx.facts && !canRestart(ctx.facts) ? { kind: 'advice', text: connectionAdvice(server, ctx.facts) } : { kind: 'recheck', label: 'Check again' }
    case 'server_not_in_scope':
      return scopeFix(ctx.narrowing)
    case 'hash_mismatch':
      return { kind: 'link', href: `${serverPage(server)}#tools`, label: 'See current pins' }
    case 'missing_annotation':
    case 'policy_filtered':
      return { kind: 'advice', text: 'The annotation comes from the server itself: untick the policy filter above, or choose another tool.' }
    case 'server_not_configured':
      return { kind: 'advice', text: `No server "${server}" is configured: add it (toolgate upstream add ${server} …) or correct the id.` }
    case 'oauth_required':
    case 'server_unhealthy':
      return ctx.facts ? connectionFix(r.action, server, ctx.facts) : null
    case 'not_found':
      return null // did_you_mean, when there is one, is offered beside the detail
  }
}

/** Where the scope that excludes a server is edited. */
function scopeFix(n: Narrowing | null): RowFix | null {
  if (!n) return null
  switch (n.by) {
    case 'allowed_servers': return { kind: 'link', href: tokenPage(n.token), label: `Edit token ${n.token}` }
    case 'token_profile': return n.exists
      ? { kind: 'link', href: profileAnchor(n.profile), label: `Edit profile ${n.profile}` }
      : { kind: 'link', href: tokenPage(n.token), label: `Re-pin token ${n.token}` }
    case 'profile': return { kind: 'link', href: profileAnchor(n.profile), label: `Edit profile ${n.profile}` }
  }
}

/** The runtime's suggested action for a connection problem, offered only when it can work for this server. */
function connectionFix(action: string | undefined, server: string, f: ServerFacts): RowFix {
  switch (action) {
    case 'login': return canLogin(f) ? { kind: 'login', server, label: 'Log in' } : { kind: 'advice', text: connectionAdvice(server, f) }
    case 'restart': return canRestart(f) ? { kind: 'run', fix: { kind: 'restart_server', server }, label: 'Restart' } : { kind: 'advice', text: connectionAdvice(server, f) }
    case 'set_secret': return canRestart(f) ? { kind: 'link', href: `${serverPage(server)}#secrets`, label: 'Set secret' } : { kind: 'advice', text: connectionAdvice(server, f) }
    default: return canRestart(f) ? { kind: 'link', href: `${serverPage(server)}#logs`, label: 'View logs' } : { kind: 'advice', text: connectionAdvice(server, f) }
  }
}
