import 'server-only'
import type { DbLike } from '@/db/client'
import { fixedRevisionBecause, isStdio, revisionPlan, type RevisionPlan, type Transport } from '@/db/schema'
import { serverStates, type ServerState } from '@/db/queries/servers'
import { isolationRuns, type Isolation, type Sampling, type Trust } from '@/lib/core/state'
import { toolInventory, toolStatuses, type ToolStatus } from './inventory'

/** Connection health, kept apart from admin state: one is what the operator set, the other what the runtime sees. */
export type Health = 'ready' | 'starting' | 'login_needed' | 'unhealthy' | 'unpublished' | 'no_transport'
const healthOf: Record<string, Health> = {
  ready: 'ready', connecting: 'starting', discovering: 'starting', authenticating: 'starting',
  pending_auth: 'login_needed', error: 'unhealthy', disconnected: 'unhealthy',
}

/** One server as the CLI's `upstream list` and the dashboard show it. */
export interface ServerRow {
  name: string
  enabled: boolean
  quarantined: boolean
  trust: Trust
  /** a one-line, secret-free description; null for a state-file server (no transport) */
  transport: string | null
  missingSecrets: string[]
  connection: ServerState['connection']
  health: Health
  tools: { total: number; callable: number; pending: number; changed: number; blocked: number }
  /** who shares one upstream session: the setting, and what runs (null for a state-file server) */
  isolation: { setting: Isolation; runs: 'shared' | 'per_token' | null; sessionState: boolean | null }
  /** the MCP revision the runtime speaks to it (null for a state-file server) */
  protocol: RevisionPlan | null
  /** the revision its ready connection speaks, as negotiated (null: not ready) */
  protocolVersion: string | null
  /** whether its sampling requests go to the caller's model (relay) or are refused unasked (withhold) */
  sampling: Sampling
  /** why it stays at 2025-11-25: a stdio process, or the HTTP+SSE transport (null: it negotiates) */
  protocolFixedBy: 'stdio' | 'sse' | null
  /** when the runtime (or a state file) last reported the connection; null: never */
  connectionAt: number | null
  /** a restart (or a login's reconnect) was asked for and the runtime has not published since */
  restartPending: boolean
  /** an inspection was asked for and the runtime has neither listed the tools nor failed to since */
  inspectPending: boolean
  /** the last inspection failed (none has listed the tools since): when and why */
  inspectFailed: { at: number; error: string } | null
}

function countTools(list: readonly ToolStatus[]) {
  return {
    total: list.length,
    callable: list.filter((t) => t.status === 'callable').length,
    pending: list.filter((t) => t.status === 'tool_pending_approval').length,
    changed: list.filter((t) => t.status === 'tool_changed').length,
    blocked: list.filter((t) => t.blocked).length,
  }
}

/** A server's row without its tool counts: for a list that does not show them (it reads no tool). */
export type ServerStateRow = Omit<ServerRow, 'tools'>

export function serverStateRow(s: ServerState): ServerStateRow {
  return {
    name: s.name, enabled: s.enabled, quarantined: s.quarantined, trust: s.trust,
    transport: s.transport ? describeTransport(s.transport) : null, missingSecrets: s.missingSecrets,
    // a state file may call a server without a command or URL ready, but nothing is behind it to
    // call (preflight says server_unhealthy): never shown healthy
    connection: s.connection, health: !s.transport ? 'no_transport' : s.connection ? healthOf[s.connection.state] : 'unpublished',
    isolation: {
      setting: s.isolation, sessionState: s.sessionState,
      runs: s.transport ? isolationRuns(s.isolation, !isStdio(s.transport), s.sessionState) : null,
    },
    protocol: s.transport ? revisionPlan(s.transport) : null,
    protocolVersion: s.transport ? s.protocolVersion : null,
    sampling: s.sampling,
    protocolFixedBy: s.transport ? fixedRevisionBecause(s.transport) : null,
    connectionAt: s.connectionAt,
    restartPending: s.transport !== null && s.enabled && !s.quarantined && (s.restartRequestedAt ?? 0) > (s.connectionAt ?? 0),
    inspectPending: s.transport !== null && s.quarantined && (s.inspectRequestedAt ?? 0) > Math.max(s.inspectedAt ?? 0, s.inspectFailedAt ?? 0),
    inspectFailed: s.inspectFailedAt !== null && s.inspectFailedAt > (s.inspectedAt ?? 0) ? { at: s.inspectFailedAt, error: s.inspectError ?? 'no reason given' } : null,
  }
}

const rowOf = (s: ServerState, tools: readonly ToolStatus[]): ServerRow => ({ ...serverStateRow(s), tools: countTools(tools) })

/** Whether a restart asked for has landed: the runtime reported since, and the connection is past its start. */
export function restartLanded(db: DbLike, name: string): boolean {
  const s = serverStates(db, name)[0]
  if (!s) return true // gone: nothing to wait for
  return (s.connectionAt ?? 0) > (s.restartRequestedAt ?? 0) && (!s.connection || healthOf[s.connection.state] !== 'starting')
}

/** Every server with admin state, believed connection health and tool counts (no tool definition read). */
export function serverRows(db: DbLike): ServerRow[] {
  const states = serverStates(db)
  const byServer = new Map<string, ToolStatus[]>()
  for (const t of toolStatuses(db, states)) {
    const list = byServer.get(t.server)
    if (list) list.push(t)
    else byServer.set(t.server, [t])
  }
  return states.map((s) => rowOf(s, byServer.get(s.name) ?? []))
}

/** One server with its settings and every tool it has (served or withheld), with pins. */
export function serverDetail(db: DbLike, name: string) {
  const state = serverStates(db, name)[0]
  if (!state) return undefined
  const toolList = toolInventory(db, name)
  return {
    ...rowOf(state, toolList),
    settings: { disabledTools: [...state.disabledTools], enabledTools: state.enabledTools && [...state.enabledTools], trust: state.trust, callTimeoutMs: state.callTimeoutMs, roots: state.roots, isolation: state.isolation, sampling: state.sampling },
    callApprovalTools: state.callApprovalTools,
    toolList,
  }
}

/**
 * The revision a server is spoken to at, as the CLI and the server page say it: the one its ready
 * connection negotiated ("2026-07-28 (negotiated)"), else the plan ("negotiated", "2025-11-25").
 */
export function revisionText(r: Pick<ServerRow, 'protocol' | 'protocolVersion'>): string | null {
  if (r.protocol === 'negotiated' && r.protocolVersion) return `${r.protocolVersion} (negotiated)`
  return r.protocol
}

/** A one-line, secret-free description of a transport. */
export function describeTransport(t: Transport): string {
  return isStdio(t) ? [t.command, ...(t.args ?? [])].join(' ') + (t.cwd ? ` (in ${t.cwd})` : '') : `${t.url}${t.type === 'sse' ? ' (SSE)' : ''}`
}
