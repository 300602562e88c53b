import 'server-only'
import { transactionOn, type Db } from '@/db/client'
import { profileList, tokensWithHashes } from '@/db/queries/access'
import { serverStates } from '@/db/queries/servers'
import { readSettings } from '@/db/queries/settings'
import { operatorList } from '@/db/queries/operators'
import { knownTools, type KnownTool } from '@/db/queries/tools'
import { presentSettings } from '@/lib/admin/settings'
import { definitionOf } from '@/lib/core/definition'
import type { Role } from '@/lib/auth/roles'
import type { OperatorSource } from '@/lib/core/roles'
import type { StateFileInput } from '@/lib/schemas/state'

/**
 * The current proxy state as a state file; `dump | load` round-trips. Secrets never appear:
 * tokens as hashes, transports with their secret names only, accounts without passwords.
 * Connection states are the ones to believe now (a runtime that is gone publishes nothing true).
 */
export function dumpState(db: Db): StateFileInput {
  return transactionOn(db, (tx) => {
    const toolsByServer = new Map<string, KnownTool[]>()
    for (const t of knownTools(tx)) toolsByServer.set(t.server, [...(toolsByServer.get(t.server) ?? []), t])
    return {
      version: 1 as const,
      settings: presentSettings(readSettings(tx)),
      servers: serverStates(tx).map((srv) => ({
        name: srv.name,
        enabled: srv.enabled,
        quarantined: srv.quarantined,
        trust: srv.trust,
        disabled_tools: [...srv.disabledTools],
        enabled_tools: srv.enabledTools && [...srv.enabledTools],
        call_approval_tools: [...srv.callApprovalTools],
        call_timeout_ms: srv.callTimeoutMs,
        roots: srv.roots,
        sampling: srv.sampling,
        ...(srv.transport ? { transport: srv.transport } : {}),
        ...(srv.connection ? { connection: { state: srv.connection.state, ...(srv.connection.detail ? { detail: srv.connection.detail } : {}), ...(srv.connection.action ? { action: srv.connection.action } : {}) } } : {}),
        tools: (toolsByServer.get(srv.name) ?? []).map((t) => ({
          ...definitionOf(t),
          ...(t.approval ? { approval: { status: t.approval.status, disabled: t.approval.disabled, ...(t.approval.status === 'changed' && t.approved ? { previous: t.approved } : {}) } } : {}),
        })),
      })),
      profiles: profileList(tx).map((p) => ({ name: p.name, servers: p.servers })),
      agent_tokens: tokensWithHashes(tx).map((t) => ({
        name: t.name, token_hash: `sha256:${t.tokenHash}`, allowed_servers: t.allowedServers, profile_pin: t.profilePin,
        ...(t.expiresAt !== null ? { expires_at: new Date(t.expiresAt).toISOString() } : {}),
      })),
      operators: operatorList(tx).map((o) => ({
        username: o.username, name: o.name, email: o.email, role: o.role as Role, enabled: o.enabled, source: o.source as OperatorSource, oidc_subject: o.oidcSubject,
      })),
    }
  })
}
