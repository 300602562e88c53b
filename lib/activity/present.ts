import type { ActivityRecord, AskedData, CallEnd } from '@/lib/core/activity'

/**
 * Where a tools/call stands (contract §12): ended, running (its runtime still works on it), or
 * unknown — toolgate stopped between forwarding it and recording how it ended.
 */
export type CallState = { state: 'ended'; end: CallEnd } | { state: 'running' } | { state: 'unknown' }
export const OUTCOME_UNKNOWN = 'outcome unknown: toolgate stopped before the result was recorded'

/**
 * A record as people and JSON consumers see it: snake_case, an ISO time, a one-line summary,
 * and for a call where it stands. Client-safe (no database code): the dashboard's live timeline
 * renders these in the browser.
 */
type Presented<R> = R extends ActivityRecord ? {
  id: number
  request_id: string
  at: string
  type: R['type']
  surface: R['surface']
  actor: string
  /** how a person proved who they were (oidc | session | token | break-glass); null for agents, the runtime and the local CLI */
  auth: string | null
  tier: R['tier']
  verdict: string | null
  server: string | null
  summary: string
  data: R['data']
  call?: CallState
} : never
export type ActivityItem = Presented<ActivityRecord>

/** Just the end of a record that carries one (a call's or an outcome's data has more). */
export const endOf = (d: CallEnd): CallEnd => ({
  outcome: d.outcome, ...(d.reason ? { reason: d.reason } : {}), ...(d.error ? { error: d.error } : {}), duration_ms: d.duration_ms,
})
const endText = (e: CallEnd) => `${e.outcome}${e.reason ? ` (${e.reason})` : ''} in ${e.duration_ms} ms`
const callText = (target: string, call: CallState) =>
  `${target}: ${call.state === 'ended' ? endText(call.end) : call.state === 'running' ? 'running' : OUTCOME_UNKNOWN}`

/** A call record's own state: the end it carries, else what its reader found (running until told otherwise). */
const stateOf = (r: Extract<ActivityRecord, { type: 'tool.call' }>, found?: CallState): CallState =>
  r.data.outcome !== undefined ? { state: 'ended', end: endOf(r.data) } : found ?? { state: 'running' }

/** "notes asked the caller (elicitation, form): accepted"; a question toolgate settled unasked says so. */
function askedText(server: string, d: AskedData): string {
  const kind = `${d.ask}${d.mode ? `, ${d.mode}` : ''}`
  if (d.asked) return `${server} asked the caller (${kind}): ${d.outcome}`
  if (d.outcome === 'withheld') return `${server} asked for sampling: withheld (the operator withholds sampling from this server)`
  return `${server} asked (${kind}): ${d.outcome} by toolgate, unasked (no caller to put it to, or its client cannot answer)`
}

export function summarize(r: ActivityRecord, call?: CallState): string {
  if (r.type === 'preflight') {
    const blocked = r.data.tools.filter((t) => t.status !== 'ready').map((t) => `${t.id} ${t.reason}`)
    return `${r.data.tools.length} id${r.data.tools.length === 1 ? '' : 's'}${r.data.as ? ` as ${r.data.as}` : ''}: ${blocked.join(', ') || 'all ready'}`
  }
  if (r.type === 'tool.call') return callText(r.data.target, stateOf(r, call))
  if (r.type === 'tool.call_outcome') return `${r.data.target}: ${endText(r.data)} (the end of call record ${r.data.call})`
  if (r.type === 'server.asked') return askedText(r.server ?? r.data.target, r.data)
  if (r.type === 'activity.pruned') return `${r.data.deleted} records before ${r.data.before}`
  if (r.type === 'pins.upgraded') return `${r.data.tools} pins to hash schema v${r.data.hash_schema}`
  if (r.type === 'secrets.encrypted') return `${r.data.secrets} stored secrets encrypted at rest`
  if (r.type === 'operator.signed_in' || r.type === 'operator.signed_out') return r.data.surface
  if (r.type === 'operator.sign_in_refused' && r.data.reason === 'sso_refused') return `single sign-on${r.data.login ? ` of ${r.data.login}` : ''} refused (${r.data.sso}) from ${r.data.address}`
  if (r.type === 'operator.sign_in_refused') return `${r.data.reason === 'agent_token' ? 'an agent token' : 'a wrong key'} from ${r.data.address}${r.data.throttled_until ? `; that address waits until ${r.data.throttled_until}` : ''}`
  return r.data.target
}

/** One record for people and JSON; a call's state comes from its reader (lib/activity/present-records.ts), which looks up its outcome. */
export function presentActivity(r: ActivityRecord, call?: CallState): ActivityItem {
  return {
    id: r.id, request_id: r.requestId, at: new Date(r.at).toISOString(), type: r.type, surface: r.surface, actor: r.actor, auth: r.auth ?? null,
    tier: r.tier, verdict: r.verdict, server: r.server, summary: summarize(r, call), data: r.data,
    ...(r.type === 'tool.call' ? { call: stateOf(r, call) } : {}),
  } as ActivityItem // the same record, renamed: its type still decides its data
}

/**
 * Calls whose outcome is among `items` (one that arrived live, say) read as ended: a running
 * call on the page settles when its outcome lands.
 */
export function settleCalls(items: readonly ActivityItem[]): ActivityItem[] {
  const ends = new Map<number, CallEnd>()
  for (const it of items) if (it.type === 'tool.call_outcome') ends.set(it.data.call, endOf(it.data))
  if (!ends.size) return [...items]
  return items.map((it) => {
    const end = it.type === 'tool.call' && it.call?.state !== 'ended' ? ends.get(it.id) : undefined
    if (!end || it.type !== 'tool.call') return it
    const call: CallState = { state: 'ended', end }
    return { ...it, call, summary: callText(it.data.target, call) }
  })
}

export interface ActivityGroup { request_id: string; items: ActivityItem[] }

/** Consecutive records of one request shown together (the list stays newest first). */
export function groupByRequest(items: readonly ActivityItem[]): ActivityGroup[] {
  const groups: ActivityGroup[] = []
  for (const it of items) {
    const last = groups.at(-1)
    if (last?.request_id === it.request_id) last.items.push(it)
    else groups.push({ request_id: it.request_id, items: [it] })
  }
  return groups
}

/** What a call's records say of it, flat: the Activity row, the request story and the CSV show the same facts. */
export interface CallFacts { target?: string; outcome?: string; duration_ms?: number; reason?: string; error?: string; call_id?: string; arguments_hash?: string; approver?: string }

export function callFacts(it: ActivityItem): CallFacts {
  if (it.type === 'tool.call') {
    const end = it.call?.state === 'ended' ? it.call.end : undefined
    return {
      target: it.data.target, outcome: end?.outcome ?? it.call?.state, duration_ms: end?.duration_ms, reason: end?.reason, error: end?.error,
      call_id: it.data.call_id, arguments_hash: it.data.arguments_hash,
    }
  }
  if (it.type === 'tool.call_outcome') return { target: it.data.target, outcome: it.data.outcome, duration_ms: it.data.duration_ms, reason: it.data.reason, error: it.data.error }
  if (it.type === 'call.approval_requested' || it.type === 'call.approved' || it.type === 'call.denied' || it.type === 'call.expired' || it.type === 'call.refused') {
    return {
      target: it.data.target, call_id: it.data.call_id, arguments_hash: it.data.arguments_hash, reason: it.data.reason,
      ...(it.type === 'call.approved' || it.type === 'call.denied' ? { approver: it.actor } : {}),
    }
  }
  return {}
}
