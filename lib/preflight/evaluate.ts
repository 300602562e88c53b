import { checkPin, HASH_SCHEMA_VERSION } from './hash'
import { classifyServer, classifyTool } from './classifier'
import { parseToolId, type ParsedId } from './ids'
import type { ConnectionView, Policy, PreflightState, ServerView, ToolView } from '@/lib/core/state'
import { reasonSpec, taxonomy, worstVerdict, type Action, type Reason, type Verdict } from './taxonomy'
import { didYouMean } from './suggest'

export type Tier = 'operator' | 'agent'

/** An agent token's scope: its allowed servers ("*" = all) and its profile pin. */
export interface TokenScope { allowedServers: readonly string[]; profilePin: string | null }

/**
 * Who is asking, already authenticated. Scope is resolved against the snapshot. An operator
 * may evaluate under a token's scope (`asToken`) and still be told the operator-tier causes.
 */
export type Caller =
  | { tier: 'operator'; name: string; asToken?: TokenScope & { name: string } }
  /** id: the agent token's immutable id (absent for an anonymous caller, which has no identity to keep state under) */
  | ({ tier: 'agent'; name: string; id?: string } & TokenScope)

export interface EvaluationInput {
  ids: readonly string[] // raw, as requested
  pins?: ReadonlyMap<string, string> // trimmed id → pin
  profile?: string // requested (REST/CLI) or session (MCP) profile; must exist
  policy?: Policy
}

export interface ReadyResult { id: string; status: 'ready'; hash?: string }
export interface UnavailableResult {
  id: string
  status: 'unavailable'
  reason: Reason
  retryable: boolean
  action?: Action
  detail: string
  remediation: string
  did_you_mean?: string[]
}
export type ToolResult = ReadyResult | UnavailableResult

export interface Evaluation { verdict: Verdict; tools: ToolResult[] }

/**
 * Build every unavailable result here — the evaluator and call-time dispatch alike — so field
 * order, omission rules and the taxonomy's words hold everywhere.
 */
export function unavailable(
  id: string, reason: Reason, detail: string,
  ctx: { server: string; tool: string }, action: Action | undefined = reasonSpec[reason].action,
): UnavailableResult {
  const spec = reasonSpec[reason]
  return {
    id, status: 'unavailable', reason, retryable: spec.retryable,
    ...(action ? { action } : {}),
    detail,
    remediation: spec.remediation({ id, ...ctx, action }),
  }
}

/** The constant details of not_found (contract §5): they never echo the id, which the `id` field carries. */
export const NOT_FOUND_DETAIL = 'No such tool.'
export const MALFORMED_ID_DETAIL = 'Malformed id: expected <server>:<tool>.'

/**
 * The single not_found constructor. At the agent tier an out-of-scope or unconfigured server
 * is reported through this same function with the same arguments, which is what makes the
 * three cases byte-identical (contract §5).
 */
function notFound(id: string): UnavailableResult {
  return unavailable(id, 'not_found', NOT_FOUND_DETAIL, { server: '', tool: '' })
}

const connectionReasons: Record<ConnectionView['state'], Reason | null> = {
  ready: null,
  connecting: 'server_initializing',
  discovering: 'server_initializing',
  authenticating: 'server_initializing',
  pending_auth: 'oauth_required',
  error: 'server_unhealthy',
  disconnected: 'server_unhealthy',
}

/** The connection verdict for a server, or null when it is ready. No published state = initializing. */
function connectionFailure(id: string, server: string, tool: string, conn: ConnectionView | undefined): UnavailableResult | null {
  const ctx = { server, tool }
  if (!conn) return unavailable(id, 'server_initializing', 'no connection state published yet', ctx)
  const reason = connectionReasons[conn.state]
  if (!reason) return null
  const note = conn.detail ? `: ${conn.detail}` : ''
  if (reason === 'server_unhealthy') return unavailable(id, reason, `connection ${conn.state}${note}`, ctx, conn.action ?? 'view_logs')
  if (reason === 'oauth_required') return unavailable(id, reason, conn.detail ?? 'login required', ctx)
  return unavailable(id, reason, `server still ${conn.state}${note}`, ctx)
}

/**
 * A state file may say a server is ready, but a server without a command or URL has nothing
 * behind it: the runtime never connects it, so every call is refused. Say that, not `ready`.
 * (Its tools still exist, so not_found and the tool gates keep their places in the chain.)
 */
function stateFileFailure(id: string, server: ServerView, ctx: { server: string; tool: string }): UnavailableResult | null {
  if (server.hasTransport) return null
  return unavailable(id, 'server_unhealthy', 'no command or URL: a state-file example, with nothing behind it to call', ctx, 'configure')
}

function policyFailure(id: string, ctx: { server: string; tool: string }, tool: ToolView, policy: Policy | undefined): UnavailableResult | null {
  if (!policy) return null
  const a = tool.annotations ?? {}
  if (policy.read_only_only) {
    if (a.readOnlyHint === undefined) return unavailable(id, 'missing_annotation', 'no readOnlyHint (read_only_only needs it)', ctx)
    if (a.readOnlyHint !== true) return unavailable(id, 'policy_filtered', 'read_only_only: readOnlyHint is false', ctx)
  }
  if (policy.exclude_destructive && a.readOnlyHint !== true) {
    if (a.destructiveHint === undefined) return unavailable(id, 'missing_annotation', 'no destructiveHint (exclude_destructive needs it)', ctx)
    if (a.destructiveHint !== false) return unavailable(id, 'policy_filtered', 'exclude_destructive: destructiveHint is true', ctx)
  }
  if (policy.exclude_open_world) {
    if (a.openWorldHint === undefined) return unavailable(id, 'missing_annotation', 'no openWorldHint (exclude_open_world needs it)', ctx)
    if (a.openWorldHint !== false) return unavailable(id, 'policy_filtered', 'exclude_open_world: openWorldHint is true', ctx)
  }
  return null
}

const pinDetail = {
  unparseable: () => 'pin is not of the form sha256/v<N>:<64 hex digits>',
  version: (v?: number) => `pin uses hash schema v${v}; this proxy computes v${HASH_SCHEMA_VERSION} (the hash schema changed, not necessarily the tool: re-read the pin)`,
  no_hash: () => 'the proxy has no stored hash for this tool, so the pin cannot be verified',
}

/** Where a scope's narrowing comes from, for the operator tier's server_not_in_scope detail. */
export type Narrowing =
  | { by: 'allowed_servers'; token: string }
  | { by: 'token_profile'; token: string; profile: string; exists: boolean }
  | { by: 'profile'; profile: string }

/** The token a caller's scope comes from: an agent's own, or the one an operator evaluates as. */
function tokenOf(caller: Caller): (TokenScope & { name: string }) | undefined {
  if (caller.tier === 'agent') return { name: caller.name.replace(/^token:/, ''), allowedServers: caller.allowedServers, profilePin: caller.profilePin }
  return caller.asToken
}

/**
 * Scope = token allowed_servers ∩ token profile pin ∩ requested profile (contract §5): the sets
 * it is the intersection of, each with the narrowing it stands for (none: every server).
 * Naming a profile can only narrow. A pin naming a deleted profile denies everything.
 */
function scopeSets(state: PreflightState, caller: Caller, profile?: string): { set: ReadonlySet<string>; why: Narrowing }[] {
  const sets: { set: ReadonlySet<string>; why: Narrowing }[] = []
  const token = tokenOf(caller)
  if (token && !token.allowedServers.includes('*')) sets.push({ set: new Set(token.allowedServers), why: { by: 'allowed_servers', token: token.name } })
  if (token && token.profilePin !== null) {
    const servers = state.profileServers(token.profilePin)
    sets.push({ set: new Set(servers), why: { by: 'token_profile', token: token.name, profile: token.profilePin, exists: servers !== undefined } })
  }
  if (profile !== undefined) sets.push({ set: new Set(state.profileServers(profile)), why: { by: 'profile', profile } })
  return sets
}

const narrowingIn = (sets: ReturnType<typeof scopeSets>) => (server: string): Narrowing | null => sets.find((s) => !s.set.has(server))?.why ?? null

/** Per server: null when it is in scope, else the first narrowing that excludes it. */
export function narrowingOf(state: PreflightState, caller: Caller, profile?: string): (server: string) => Narrowing | null {
  return narrowingIn(scopeSets(state, caller, profile))
}

export function scopeOf(state: PreflightState, caller: Caller, profile?: string): (server: string) => boolean {
  const narrowing = narrowingOf(state, caller, profile)
  return (server) => narrowing(server) === null
}

/** The operator tier's server_not_in_scope detail: where the narrowing came from, and what an agent sees. */
function notInScopeDetail(n: Narrowing): string {
  switch (n.by) {
    case 'allowed_servers': return `not in token "${n.token}"'s allowed_servers; its agents see not_found`
    case 'token_profile': return n.exists
      ? `outside profile "${n.profile}", which token "${n.token}" is pinned to; its agents see not_found`
      : `token "${n.token}" is pinned to profile "${n.profile}", which no longer exists, so it may use no server; its agents see not_found`
    case 'profile': return `outside profile "${n.profile}"; agents in it see not_found`
  }
}

/**
 * The evaluator: a pure function of one state snapshot and one request. Per id it returns
 * ready or exactly one reason, first match in the precedence chain (contract §3):
 *
 *   server_not_configured → server_not_in_scope → server_quarantined → server_disabled
 *   → not_found → tool_denied_by_config → tool_blocked_by_user → tool_changed
 *   → tool_pending_approval → hash_mismatch → oauth_required → server_unhealthy
 *   → server_initializing → missing_annotation | policy_filtered → ready
 */
export function evaluate(state: PreflightState, caller: Caller, input: EvaluationInput): Evaluation {
  const agent = caller.tier === 'agent'
  const sets = scopeSets(state, caller, input.profile)
  const narrowing = narrowingIn(sets)
  const inScope = (server: string) => narrowing(server) === null
  // a narrowed scope's servers: suggestions are looked for there only
  const reach = sets.length ? [...sets[0].set].filter((s) => sets.every((x) => x.set.has(s))) : undefined
  // At the agent tier an id outside the scope takes the unconfigured path whole, before any read
  // of its server or tools: neither the answer nor what it costs tells the agent the server exists.
  const hidden = (server: string) => agent && narrowing(server) !== null
  const quarantineEnabled = state.quarantineEnabled()
  const seen = new Set<string>()
  const results: ToolResult[] = []
  const ids = input.ids.map(parseToolId)
  state.prefetch(ids.filter((p): p is Extract<ParsedId, { server: string }> => !('malformed' in p) && !hidden(p.server)))

  for (const parsed of ids) {
    if (seen.has(parsed.id)) continue
    seen.add(parsed.id)
    if ('malformed' in parsed) {
      results.push(unavailable(parsed.id, 'not_found', MALFORMED_ID_DETAIL, { server: '', tool: '' }))
      continue
    }
    const r = hidden(parsed.server) ? notFound(parsed.id) : judge(state, parsed, agent, narrowing, quarantineEnabled, input, agent ? caller.id : undefined)
    if (r.status === 'unavailable' && r.reason === 'not_found') {
      const suggestions = didYouMean(state, parsed.id, inScope, quarantineEnabled, reach)
      if (suggestions.length) r.did_you_mean = suggestions
    }
    results.push(r)
  }
  return { verdict: worstVerdict(results.map((r) => (r.status === 'ready' ? 'ready' : taxonomy[r.reason].verdict))), tools: results }
}

function judge(
  state: PreflightState, { id, server: serverName, tool: toolName }: { id: string; server: string; tool: string },
  agent: boolean, narrowing: (s: string) => Narrowing | null, quarantineEnabled: boolean, input: EvaluationInput, tokenId: string | undefined,
): ToolResult {
  const ctx = { server: serverName, tool: toolName }
  const server: ServerView | undefined = state.server(serverName)

  // Agent tier: unconfigured collapses into the absent tool's not_found (out of scope never gets here: see evaluate).
  if (!server) return agent ? notFound(id) : unavailable(id, 'server_not_configured', 'server not configured', ctx)
  const outside = narrowing(serverName)
  if (outside) return unavailable(id, 'server_not_in_scope', notInScopeDetail(outside), ctx)
  const serverGate = classifyServer(server)
  if (serverGate === 'server_quarantined') {
    return unavailable(id, serverGate, 'server quarantined, awaiting review', ctx)
  }
  if (serverGate === 'server_disabled') return unavailable(id, serverGate, 'server disabled', ctx)

  const conn = state.connection(serverName, tokenId)
  const tool = state.tool(serverName, toolName)
  if (!tool) {
    // Existence is only knowable on a Ready server; otherwise report the connection verdict.
    return connectionFailure(id, serverName, toolName, conn) ?? notFound(id)
  }

  const toolGate = classifyTool(server, toolName, tool, quarantineEnabled)
  switch (toolGate) {
    case 'tool_denied_by_config':
      return unavailable(id, toolGate, server.disabledTools.includes(toolName)
        ? 'listed in the server\'s disabled_tools'
        : 'not in the server\'s enabled_tools allowlist', ctx)
    case 'tool_blocked_by_user':
      return unavailable(id, toolGate, 'blocked by an operator', ctx)
    case 'tool_changed':
      return unavailable(id, toolGate, 'definition changed since approval', ctx)
    case 'tool_pending_approval':
      return unavailable(id, toolGate, 'new tool, awaiting approval', ctx)
    case 'callable':
      break
  }

  const pin = input.pins?.get(id)
  if (pin !== undefined) {
    const check = checkPin(pin, tool.hash)
    if (!check.ok) {
      const detail = check.why === 'mismatch'
        ? agent
          ? 'pin does not match the current definition'
          : `pin does not match the current definition (current pin: ${tool.hash})`
        : pinDetail[check.why](check.pinVersion)
      return unavailable(id, 'hash_mismatch', detail, ctx)
    }
  }

  const connFailure = connectionFailure(id, serverName, toolName, conn) ?? stateFileFailure(id, server, ctx)
  if (connFailure) return connFailure

  const filtered = policyFailure(id, ctx, tool, input.policy)
  if (filtered) return filtered

  return !agent && tool.hash ? { id, status: 'ready', hash: tool.hash } : { id, status: 'ready' }
}
