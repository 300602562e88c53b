import 'server-only'
import type { Db, Tx } from '@/db/client'
import { isStdio, type ApprovedDefinition, type Transport } from '@/db/schema'
import { knownTools, reviewContext, saveApproval } from '@/db/queries/tools'
import { carriedOver, clearState, insertConnection, insertTool, restoreDefinition, restoreOauth, restoreSecret } from '@/db/queries/state'
import { insertProfile, insertToken } from '@/db/queries/access'
import { writeSettings } from '@/db/queries/settings'
import { deleteOperator, endCredentialsOf, insertOperator, operatorList, updateOperator } from '@/db/queries/operators'
import { newOperatorId } from '@/lib/auth/accounts'
import { can } from '@/lib/auth/roles'
import { withdrawFirstApprovalsOf } from '@/lib/approvals/two-person'
import { mintRequestId } from '@/lib/activity/request-id'
import { holdToApproval } from '@/lib/upstream/discovery'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { secretTarget } from '@/lib/admin/upstreams'
import { describeTransport } from '@/lib/catalog/servers'
import { insertServerRow, serverNames } from '@/db/queries/servers'
import { writeTransaction } from '@/db/write'
import { hashSecret } from '@/lib/auth/secrets'
import { newTokenId } from '@/lib/admin/tokens'
import { badRequest } from '@/lib/core/errors'
import { formatIssue } from '@/lib/schemas/issues'
import { toolPin } from '@/lib/preflight/hash'
import { approvedOf, definitionOf, storedOf } from '@/lib/core/definition'
import type { MovedSecrets } from '@/lib/core/activity'
import { crossEntryIssues, stateFileSchema, type StateFile } from '@/lib/schemas/state'

/** Validate a parsed state file; throws bad_request listing every problem by JSON path. */
export function parseStateFile(doc: unknown): StateFile {
  const parsed = stateFileSchema.safeParse(doc)
  const issues = [...(parsed.success ? [] : parsed.error.issues), ...crossEntryIssues(doc)]
  if (issues.length) throw badRequest(issues.map(formatIssue).join('\n'))
  return parsed.data!
}

/**
 * Replace the proxy state with the file's, in one transaction (activity is kept).
 * Validation happens first; a bad file changes nothing. Secret values never appear in a file,
 * so a server that the file keeps, still naming the secret, keeps its stored value (and an HTTP
 * server its OAuth tokens and client): a dump loaded back reconnects instead of losing its
 * credentials. Unless the file points the server at another target (secretTarget): then its
 * secrets are dropped — a file edited to name another URL never receives the old credentials —
 * or, with `keepSecrets`, kept; either way the result and the record say so.
 * Its instructions, prompts and resources, which a file does not hold, stay with their approvals.
 * Nor does a file approve a definition: a tool it marks approved that was approved here as
 * something else is changed (a `tool.changed` record), keeping the definition approved here,
 * until an operator approves it.
 */
export async function loadState(db: Db, doc: unknown, actor: string, opts: { keepSecrets?: boolean } = {}): Promise<{ servers: number; tools: number; after: Record<string, number>; activityId: number; requestId: string; secretsDropped: MovedSecrets[]; secretsKept: MovedSecrets[] }> {
  const state = parseStateFile(doc)
  const now = Date.now()
  const requestId = mintRequestId(now)
  const held: { server: StateFile['servers'][number]; definition: ReturnType<typeof definitionOf>; hash: string; before: { approved: ApprovedDefinition; hash: string } }[] = []
  let toolCount = 0
  const secretsDropped: MovedSecrets[] = []
  const secretsKept: MovedSecrets[] = []
  const record = await writeTransaction(db, (tx) => {
    // a token the file keeps (the same secret) stays the same caller: its tasks and held calls stay
    // its own; server definitions are not in a file: a server the file keeps keeps them, with
    // their approvals (the runtime re-lists them)
    const { transports: previous, secrets: storedSecrets, oauth: storedOauth, tokensByHash, definitions: storedDefinitions } = carriedOver(tx)
    const approvedBefore = approvedDefinitions(tx)
    clearState(tx)
    writeSettings(tx, {
      quarantineEnabled: state.settings.quarantine_enabled,
      mcpAnonymousProfile: state.settings.mcp_anonymous_profile,
      activityRetentionDays: state.settings.activity_retention_days,
      callApprovalWaitMs: state.settings.call_approval_wait_ms,
      maxDescriptionOverlap: state.settings.max_description_overlap,
      agentRequestsPerSecond: state.settings.agent_requests_per_second,
      agentRecordedMibPerHour: state.settings.agent_recorded_mib_per_hour,
      breakGlassKey: state.settings.break_glass_key,
      twoPersonRule: state.settings.two_person_rule,
      localAccounts: state.settings.local_accounts,
    })
    for (const s of state.servers) {
      insertServerRow(tx, {
        name: s.name, enabled: s.enabled, quarantined: s.quarantined, trust: s.trust,
        disabledTools: s.disabled_tools, enabledTools: s.enabled_tools, callApprovalTools: s.call_approval_tools, callTimeoutMs: s.call_timeout_ms, roots: s.roots, sampling: s.sampling, transport: s.transport ?? null,
        baselineAt: s.tools.length ? now : null, // a file's tools are the approved baseline
        createdAt: now, updatedAt: now,
      })
      const named = new Set(s.transport?.secrets ?? [])
      const secrets = storedSecrets.filter((x) => x.serverName === s.name && named.has(x.name))
      const oauth = s.transport && !isStdio(s.transport) ? storedOauth.find((x) => x.serverName === s.name) : undefined
      const before = previous.get(s.name)
      const moved = before !== undefined && secretTarget(before) !== secretTarget(s.transport) && (secrets.length > 0 || oauth !== undefined)
      if (moved) (opts.keepSecrets ? secretsKept : secretsDropped).push({ server: s.name, from: shown(before), to: shown(s.transport), secrets: secrets.map((x) => x.name), oauth: oauth !== undefined })
      if (!moved || opts.keepSecrets) {
        for (const secret of secrets) restoreSecret(tx, secret)
        if (oauth) restoreOauth(tx, oauth)
      }
      for (const d of storedDefinitions) if (d.serverName === s.name) restoreDefinition(tx, d)
      if (s.connection) {
        insertConnection(tx, {
          serverName: s.name, state: s.connection.state, detail: s.connection.detail ?? null,
          action: s.connection.action ?? null, updatedAt: now,
        })
      }
      for (const t of s.tools) {
        toolCount++
        const stored = storedOf(t.name, t)
        const definition = definitionOf(stored)
        const hash = toolPin(definition)
        insertTool(tx, { serverName: s.name, ...stored, hash, firstSeen: now, lastSeen: now })
        if (t.approval) {
          const { name: _name, ...offered } = definition
          const approved = t.approval.status === 'approved' ? offered : t.approval.status === 'changed' ? t.approval.previous ?? null : null
          saveApproval(tx, s.name, t.name, {
            status: t.approval.status, disabled: t.approval.disabled,
            approved, approvedHash: approved && toolPin({ name: t.name, ...approved }), decidedBy: actor, decidedAt: now,
          })
        }
        // approved in the file, but approved here as something else: a file cannot approve a definition
        if (t.approval?.status !== 'pending' && t.approval?.status !== 'changed') {
          const before = approvedBefore.get(`${s.name}\u0000${t.name}`)
          if (before && before.hash !== hash) held.push({ server: s, definition, hash, before })
        }
      }
    }
    // once every server is in, so the findings see what each definition could name elsewhere
    for (const h of held) {
      holdToApproval(tx, {
        server: h.server, definition: h.definition, hash: h.hash, approval: { status: 'approved', approved: h.before.approved, approvedHash: h.before.hash },
        actor, requestId, now, context: reviewContext(tx, h.server.name), note: 'found by state load: the file offers another definition than the one approved here',
      })
    }
    for (const p of state.profiles) insertProfile(tx, p.name, p.servers)
    for (const t of state.agent_tokens) {
      const tokenHash = t.token !== undefined ? hashSecret(t.token) : t.token_hash!.slice('sha256:'.length)
      // the same secret is the same token: it keeps its id and when it was last used
      const kept = tokensByHash.get(tokenHash)
      insertToken(tx, {
        name: t.name, id: kept?.id ?? newTokenId(), tokenHash, lastUsedAt: kept?.lastUsedAt ?? null,
        allowedServers: t.allowed_servers, profilePin: t.profile_pin, createdAt: now, expiresAt: t.expires_at === null ? null : Date.parse(t.expires_at),
      })
    }
    if (state.operators) applyOperators(tx, state.operators, now, { actor, requestId })
    const after = { servers: state.servers.length, tools: toolCount, profiles: state.profiles.length, agent_tokens: state.agent_tokens.length, ...(state.operators ? { operators: state.operators.length } : {}) }
    return { after, ...recordChange(tx, 'state.loaded', { actor, requestId }, {
      target: 'state', before: null, after,
      ...(secretsDropped.length ? { secrets_dropped: secretsDropped } : {}),
      ...(secretsKept.length ? { secrets_kept: secretsKept } : {}),
    }, { now }) }
  })
  return { servers: state.servers.length, tools: toolCount, ...record, secretsDropped, secretsKept }
}

const shown = (t: Transport | null | undefined) => (t ? describeTransport(t) : '(no transport)')

/** Every tool's approved definition and pin, by server and name (without a record: the tool as it stands). */
function approvedDefinitions(tx: Tx): Map<string, { approved: ApprovedDefinition; hash: string }> {
  const out = new Map<string, { approved: ApprovedDefinition; hash: string }>()
  for (const t of knownTools(tx)) {
    const approved = !t.approval ? approvedOf(t) : t.approval.status === 'approved' ? t.approved : null
    const hash = t.approval ? t.approvedHash : t.hash
    if (approved && hash) out.set(`${t.server}\u0000${t.name}`, { approved, hash })
  }
  return out
}

/** Whether the database holds no proxy state yet (first start). */
export function isEmptyState(db: Db): boolean {
  return serverNames(db).length === 0
}

/**
 * The file's accounts become the accounts. One the file keeps (by username) stays the same
 * person — its id, password and, unless its role changes or it is disabled, its sessions and
 * tokens; a new one has no password (it signs in by SSO, or an admin invites it); one the file
 * leaves out is removed, with its sessions, tokens and invitations. The first approvals (two-person
 * rule) of one that can no longer approve — removed, disabled, or no longer an approver — are
 * withdrawn: a second approver cannot complete them on the strength of someone gone.
 */
function applyOperators(tx: Tx, people: NonNullable<StateFile['operators']>, now: number, ctx: ActionContext): void {
  const existing = new Map(operatorList(tx).map((o) => [o.username, o]))
  const kept = new Set(people.map((p) => p.username))
  for (const o of existing.values()) {
    if (kept.has(o.username)) continue
    withdrawFirstApprovalsOf(tx, o.id, `state load removed ${o.username}`, ctx)
    deleteOperator(tx, o.id)
  }
  // a swap (A takes B's e-mail and B A's) must not trip the unique constraints halfway: free what changes first
  for (const p of people) {
    const o = existing.get(p.username)
    if (o && (o.email !== p.email || o.oidcSubject !== p.oidc_subject)) updateOperator(tx, o.id, { email: null, oidcSubject: null })
  }
  for (const p of people) {
    const fields = { name: p.name, email: p.email, role: p.role, enabled: p.enabled, oidcSubject: p.oidc_subject }
    const o = existing.get(p.username)
    if (!o) {
      insertOperator(tx, { id: newOperatorId(), username: p.username, ...fields, passwordHash: null, source: p.source, createdAt: now })
      continue
    }
    if (o.role !== p.role || (o.enabled && !p.enabled)) endCredentialsOf(tx, o.id)
    if (!p.enabled || !can(p.role, 'approve')) withdrawFirstApprovalsOf(tx, o.id, `state load ${p.enabled ? `made ${o.username} ${p.role}` : `disabled ${o.username}`}`, ctx)
    updateOperator(tx, o.id, fields)
  }
}
