/**
 * The closed vocabulary of activity records: every type, and the shape of its data. Writers
 * are checked against it (`ActivityInput<T>`), and readers narrow on `type` instead of casting.
 */

import type { DefinitionChange, DefinitionKind, FieldChange, Finding } from './definition'
import type { Policy } from './state'

/** Surfaces a check can arrive on. */
export const surfaces = ['rest', 'cli', 'dashboard', 'mcp-check', 'mcp-shape-a', 'mcp-shape-b'] as const
export type Surface = (typeof surfaces)[number]

/** An operator's (or the runtime's) change to one thing: what, before and after. */
export interface ChangeData<T> { target: string; before: T | null; after: T | null; note?: string }

/** An operator account as the log keeps it: never a password or secret. */
export interface OperatorState { username: string; name: string; email: string | null; role: string; enabled: boolean }

export interface CheckedTool { id: string; status: 'ready' | 'unavailable'; reason?: string }

export interface PreflightData {
  ids_raw: number
  ids_unique: number
  tools: CheckedTool[]
  /** run by an operator as this agent caller (`token:<name>`): what it would be told; the record is the operator's */
  as?: string
  profile?: string
  policy?: Policy
  pinned?: number
  waited_ms?: number
  duration_ms: number
}

interface ApprovalState { status: string; disabled: boolean }
interface ServerAdminState { enabled: boolean; quarantined: boolean }
interface DiscoveryState { status?: string; pin?: string | null }
/** A definition that arrived or changed: the field-by-field diff against the approved one, and review findings. */
interface Reviewed { diff?: FieldChange[]; findings?: Finding[] }
/** A server's stored secrets whose target a state load changed (lib/state/load.ts). */
export interface MovedSecrets { server: string; from: string; to: string; secrets: string[]; oauth: boolean }
/** A server's instructions, prompt, resource or template, reviewed as tools are: what changed and the findings. */
type DefinitionData = ChangeData<DiscoveryState> & { kind: DefinitionKind; diff?: DefinitionChange[]; findings?: Finding[] }
/** A prompts/get or resources/read: passed the gate (ok), refused by it, withheld for what it said, or failed upstream. */
interface ServedRead { target: string; outcome: 'ok' | 'refused' | 'withheld' | 'failed'; reason?: string; error?: string; findings?: Finding[]; duration_ms: number }
/** pin: the tool's pin the call was requested under (approval_requested) or its approver was shown (approved) */
interface HeldCall { target: string; call_id: string; caller: string; arguments_hash: string; reason?: string; pin?: string | null }

export const callOutcomes = ['ok', 'tool_error', 'refused', 'failed', 'held', 'denied', 'expired', 'cancelled'] as const
/** How a tools/call ended; `error` is the failure as the agent was told it (trimmed). */
export interface CallEnd { outcome: (typeof callOutcomes)[number]; reason?: string; error?: string; duration_ms: number }

/**
 * A tools/call as toolgate received it (the record's actor is the caller): the tool, a SHA-256 of
 * the canonical arguments, the held call and the task it ran as, and the runtime instance that
 * forwarded it. A call that never reached the upstream (refused, or held and not run by this
 * caller) carries its end in this one record; a forwarded call's end is the tool.call_outcome
 * record naming it (`call` = this record's id). Without one it is running while that runtime
 * lives, and its outcome is unknown after.
 */
export type CallData = { target: string; arguments_hash: string; call_id?: string; task_id?: string; runtime?: string } & (CallEnd | { outcome?: undefined })

/**
 * What became of one question an upstream asked its client during a call, as it was decided: put
 * to the caller (`asked`) and answered — an elicitation accepted, declined or cancelled (no answer
 * came), a sampling answered or refused by the caller's client — or settled by toolgate unasked:
 * declined or refused (no caller to put it to, or its client cannot answer), or withheld (the
 * server's sampling setting). Only its kind and outcome: never the question's text, its schema or
 * the answer, which the upstream and the person wrote.
 */
export interface AskedData {
  /** the tool the call was for (server:tool), or the server's name when the question names no call */
  target: string
  ask: 'elicitation' | 'sampling'
  /** an elicitation's mode */
  mode?: 'form' | 'url'
  asked: boolean
  outcome: 'accepted' | 'declined' | 'cancelled' | 'answered' | 'refused' | 'withheld'
}
/** What became of a question, as the runtime notes it for its record. */
export type AskNote = Omit<AskedData, 'target'>
/** Whose call a question belongs to, as its record names them. */
export interface Asker { requestId: string; actor: string; tier: 'operator' | 'agent'; target: string }

/** Each type's data. */
export interface ActivityDataByType {
  preflight: PreflightData
  'tool.approved': ChangeData<ApprovalState>
  'tool.blocked': ChangeData<ApprovalState>
  'tool.enabled': ChangeData<ApprovalState>
  'server.enabled': ChangeData<ServerAdminState>
  'server.disabled': ChangeData<ServerAdminState>
  'server.quarantined': ChangeData<ServerAdminState>
  'server.unquarantined': ChangeData<ServerAdminState>
  // secrets_dropped / secrets_kept: servers the file moved to another target, whose stored secrets were dropped (or kept, --keep-secrets)
  'state.loaded': ChangeData<{ servers: number; tools: number; profiles: number; agent_tokens: number; operators?: number }> & { secrets_dropped?: MovedSecrets[]; secrets_kept?: MovedSecrets[] }
  // upstream runtime (lib/upstream/*, lib/admin/upstreams.ts): configuration, discovery, logins, calls
  'server.added': ChangeData<{ quarantined: boolean; trust: string; transport: string; secrets: string[] }>
  'server.removed': ChangeData<{ enabled: boolean; quarantined: boolean; transport: string | null }>
  // where the runtime reaches a server changed (the demo's upstreams get new ports each start)
  'server.transport_changed': ChangeData<{ transport: string }>
  'server.secret_set': { target: string; secret: string }
  'server.restart_requested': { target: string }
  'server.login_started': { target: string; result: string }
  'server.login_completed': { target: string }
  'server.oauth_configured': { target: string; grant: string; client: string; secret: boolean }
  'server.baseline': ChangeData<{ approved: number }>
  'tool.discovered': ChangeData<DiscoveryState> & Reviewed
  'tool.changed': ChangeData<DiscoveryState> & Reviewed
  'tool.auto_approved': ChangeData<DiscoveryState> & Reviewed
  'server.inspect_requested': ChangeData<Record<string, never>>
  'server.inspected': ChangeData<{ tools: number; definitions?: number }> & { findings: Finding[] }
  'tool.gone': { target: string }
  'tool.returned': { target: string }
  // a server's instructions, prompts, resources and resource templates (lib/approvals/server-definitions.ts)
  'definition.discovered': DefinitionData
  'definition.changed': DefinitionData
  'definition.auto_approved': DefinitionData
  'definition.approved': DefinitionData
  'definition.gone': { target: string; kind: DefinitionKind }
  'prompt.get': ServedRead
  'resource.read': ServedRead
  // a tools/call, in two parts (contract §12): the call, committed while the upstream works, and its outcome appended after
  'tool.call': CallData
  'tool.call_outcome': CallEnd & { target: string; call: number }
  // a task-augmented call (2025-11-25): the task toolgate runs it as; its call is the tool.call record with the same task_id
  'task.created': { target: string; task_id: string; ttl_ms: number }
  'task.cancelled': { target: string; task_id: string }
  // what an upstream asked during a call (an elicitation, a sampling), under the call's request id, as it was decided
  'server.asked': AskedData
  // call approval: a call of a tool under call approval waits for an operator's decision on that exact call
  'tool.call_approval': ChangeData<{ call_approval: boolean }>
  'call.approval_requested': HeldCall
  'call.approved': HeldCall
  'call.denied': HeldCall
  'call.expired': HeldCall
  // approved, but the gate asked again when the approval was about to run it refused it (reason: the verdict's)
  'call.refused': HeldCall
  // dashboard operator actions (lib/admin/*): sign-in, server settings, tokens, profiles
  'operator.signed_in': { surface: 'dashboard'; until: string; method?: 'password' | 'break-glass' | 'oidc' }
  'operator.signed_out': { surface: 'dashboard' }
  // a refused sign-in: where it came from (the socket's address), the login tried and why; never the key or password tried
  'operator.sign_in_refused': {
    surface: 'dashboard'; address: string; login?: string; throttled_until?: string
    reason: 'wrong_key' | 'agent_token' | 'wrong_password' | 'disabled' | 'break_glass_off' | 'local_accounts_off' | 'throttled' | 'sso_refused'
    // a refused single sign-on: which rule (lib/auth/oidc.ts SSO_REFUSALS) and what the provider or its answer said
    sso?: string; detail?: string
  }
  // named operators (lib/admin/operators.ts): accounts, their sessions and personal tokens
  'operator.created': ChangeData<OperatorState>
  'operator.invited': ChangeData<OperatorState> & { expires_at: string }
  'operator.invitation_accepted': ChangeData<OperatorState>
  'operator.changed': ChangeData<OperatorState> & { sessions_ended?: number; tokens_revoked?: number }
  'operator.session_ended': ChangeData<{ session: string; method: string | null }>
  // an account's first single sign-on linked it to the provider's identity (iss + sub)
  'operator.sso_linked': ChangeData<{ subject: string; email: string }>
  'personal_token.created': ChangeData<{ name: string; role: string; expires_at: string }>
  'personal_token.revoked': ChangeData<{ name: string; role: string; expires_at: string }>
  // the two-person rule: a first approval, waiting for a second approver
  'approval.first_of_two': ChangeData<{ kind: 'tool' | 'definition' | 'release' | 'call'; subject: string }>
  // a first approval that no longer counts: its approver's account was removed or disabled (by a state load)
  'approval.withdrawn': ChangeData<{ kind: 'tool' | 'definition' | 'release' | 'call'; subject: string; by: string }> & { reason: string }
  'server.configured': ChangeData<{ disabledTools: string[]; enabledTools: string[] | null; trust: string; callTimeoutMs?: number; roots?: { uri: string; name?: string }[]; isolation?: string; sampling?: string }>
  // expiresAt: when the token stops working (ISO), null = never
  'token.created': ChangeData<{ allowedServers: string[]; profilePin: string | null; expiresAt?: string | null }>
  'token.updated': ChangeData<{ allowedServers: string[]; profilePin: string | null }>
  'token.revoked': ChangeData<{ allowedServers: string[]; profilePin: string | null }>
  // a new secret for the same token (id, name and scope kept): the old secret stops working at once
  'token.rotated': ChangeData<Record<string, never>>
  // a token's expiry set or cleared (null = never expires)
  'token.expiry_changed': ChangeData<{ expiresAt: string | null }>
  'profile.created': ChangeData<{ servers: string[] }>
  'profile.updated': ChangeData<{ servers: string[] }>
  'profile.deleted': ChangeData<{ servers: string[] }>
  // an Overview item (a deliberate block) acknowledged as shown (its fingerprint), until it changes or a snooze ends; or shown again
  'triage.acknowledged': ChangeData<{ fingerprint: string; until: string | null }>
  'triage.unacknowledged': ChangeData<{ fingerprint: string; until: string | null }>
  // proxy-wide settings and the activity log's own upkeep
  'operator_key.rotated': ChangeData<{ sessions_signed_out: number }>
  'settings.changed': ChangeData<{ quarantine_enabled: boolean; mcp_anonymous_profile: string | null; activity_retention_days: number | null }>
  'activity.pruned': { before: string; deleted: number; held_calls?: number }
  // a confirmed change that brought a scope's closest pair over settings.max_description_overlap
  'surface.over_ceiling': ChangeData<{ a: string; b: string; score: number; cross_server: boolean; ceiling: number }>
  // reset_to_pending: approvals that could not be carried over (the definition they approved was overwritten before v3)
  'pins.upgraded': { tools: number; definitions?: number; hash_schema: number; reset_to_pending?: string[] }
  // a database from before encryption at rest had its plain-text secrets sealed, once (lib/auth/seal-secrets.ts)
  'secrets.encrypted': { secrets: number }
}

export type ActivityType = keyof ActivityDataByType

/** Every type, in the vocabulary's order (for filters and the docs). */
export const activityTypes = [
  'preflight',
  'tool.approved', 'tool.blocked', 'tool.enabled',
  'server.enabled', 'server.disabled', 'server.quarantined', 'server.unquarantined',
  'state.loaded',
  'server.added', 'server.removed', 'server.transport_changed', 'server.secret_set', 'server.restart_requested',
  'server.login_started', 'server.login_completed', 'server.oauth_configured', 'server.baseline', 'server.inspect_requested', 'server.inspected',
  'tool.discovered', 'tool.changed', 'tool.auto_approved', 'tool.gone', 'tool.returned', 'tool.call', 'tool.call_outcome', 'task.created', 'task.cancelled', 'server.asked',
  'definition.discovered', 'definition.changed', 'definition.auto_approved', 'definition.approved', 'definition.gone', 'prompt.get', 'resource.read',
  'tool.call_approval', 'call.approval_requested', 'call.approved', 'call.denied', 'call.expired', 'call.refused',
  'operator.signed_in', 'operator.signed_out', 'operator.sign_in_refused', 'server.configured',
  'operator.created', 'operator.invited', 'operator.invitation_accepted', 'operator.changed', 'operator.session_ended', 'operator.sso_linked',
  'personal_token.created', 'personal_token.revoked', 'approval.first_of_two', 'approval.withdrawn',
  'token.created', 'token.updated', 'token.revoked', 'token.rotated', 'token.expiry_changed',
  'profile.created', 'profile.updated', 'profile.deleted', 'triage.acknowledged', 'triage.unacknowledged',
  'operator_key.rotated', 'settings.changed', 'activity.pruned', 'pins.upgraded', 'secrets.encrypted', 'surface.over_ceiling',
] as const satisfies readonly ActivityType[]

// every type is listed above: a type added to ActivityDataByType alone fails to compile here
const everyType: Exclude<ActivityType, (typeof activityTypes)[number]> extends never ? true : never = true
void everyType

/** The types whose data is a ChangeData (before/after), for readers that show a diff. */
export type ChangeType = { [T in ActivityType]: ActivityDataByType[T] extends ChangeData<unknown> ? T : never }[ActivityType]

/** One record as stored, typed by its `type`. */
export type ActivityRecord = {
  [T in ActivityType]: {
    id: number
    requestId: string
    at: number
    type: T
    surface: Surface | null
    actor: string
    tier: 'operator' | 'agent' | null
    verdict: string | null
    server: string | null
    /** a person's record: their account and how they were authenticated (session | token | break-glass) */
    operatorId?: string | null
    auth?: string | null
    data: ActivityDataByType[T]
  }
}[ActivityType]
