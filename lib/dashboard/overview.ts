import 'server-only'
import { createHash } from 'node:crypto'
import type { Db } from '@/db/client'
import { tokenByName } from '@/db/queries/access'
import { triageAckMap } from '@/db/queries/triage'
import type { TriageAck } from '@/db/schema'
import { listActivity } from '@/db/queries/activity'
import { presentRecords } from '@/lib/activity/present-records'
import { serverStates } from '@/db/queries/servers'
import { gatedInventory } from '@/lib/catalog/inventory'
import { serverStateRow } from '@/lib/catalog/servers'
import { accessOverview } from './access'
import { explainAt, operatorAs, type Explained } from './explain'
import type { RowFix } from './fixes'
import { withFacts } from './server-facts'

// how far back "recent blocked checks" reaches, per verdict index
const RECENT_BLOCKED = 100
const MAX_AGENTS = 8
// An agent chooses how many ids it asks for and what they are: the Overview judges again at most
// MAX_JUDGED of an agent's refused ids (its latest first) and lists MAX_SHOWN, so a flood of
// refused checks costs a bounded page, never one row per id ever asked for.
const MAX_JUDGED = 50
const MAX_SHOWN = 10
// how far back "calls that fail" reaches: the latest calls by agents, whatever their outcome
const RECENT_CALLS = 300
// a call's end that did not do what the agent asked (held waits on an operator: Approvals shows those)
const FAILED = new Set(['refused', 'failed', 'tool_error', 'denied', 'expired'])
// blocks an operator made on purpose: the agent is told the truth, and the operator may acknowledge them
const DELIBERATE = new Set(['tool_blocked_by_user', 'tool_denied_by_config', 'server_disabled', 'server_not_in_scope'])

/** One cause an agent's ids are still refused for, with its own fix ("24 ids outside profile team-07 → Edit profile team-07"). */
export interface Cause {
  /** which item this is, for acknowledging it: the token, the reason and the fix */
  key: string
  /** what it holds now (its ids): an acknowledgement of other ids does not hide it */
  fingerprint: string
  reason: string
  /** the first id's detail: the cause in words */
  detail: string
  count: number
  /** the first MAX_SHOWN of its ids */
  ids: string[]
  /** where this cause's own fix is done, with the fix's words: each cause of an agent has its own */
  fixLink: { href: string; label: string } | null
  deliberate: boolean
}

/** A cause an operator acknowledged: by whom, and until when (null: until it changes). */
export interface AcknowledgedCause extends Cause { token: string; by: string; until: string | null }

/** A tool an agent's latest call to did not succeed: fixed only once a later call to it does. */
export interface FailingCall { target: string; outcome: string; reason?: string; error?: string; requestId: string; at: string; failures: number }

export interface BlockedAgent {
  token: string
  /** the latest blocked check of this token, and how many of its recent checks were blocked */
  lastRequestId: string
  lastAt: string
  checks: number
  /** the ids those checks were refused that are still not ready now, grouped by cause (acknowledged ones left out) */
  causes: Cause[]
  /** whether these checks refused more ids than were judged again */
  unjudged: boolean
  /** tools whose latest call by this token failed or was refused (at most MAX_SHOWN), newest first */
  failingCalls: FailingCall[]
}

/** Per agent token, the tools its latest recent call to did not succeed. */
function failingCalls(db: Db): Map<string, FailingCall[]> {
  const calls = presentRecords(db, listActivity(db, { type: 'tool.call', limit: RECENT_CALLS }))
  const latest = new Map<string, Map<string, FailingCall | 'ok'>>() // token → target → its latest end (records are newest first)
  for (const c of calls) {
    if (c.type !== 'tool.call' || c.tier !== 'agent' || !c.actor.startsWith('token:') || c.call?.state !== 'ended') continue
    const token = c.actor.slice('token:'.length)
    const byTarget = latest.get(token) ?? new Map<string, FailingCall | 'ok'>()
    latest.set(token, byTarget)
    const seen = byTarget.get(c.data.target)
    const end = c.call.end
    if (seen === undefined) {
      byTarget.set(c.data.target, FAILED.has(end.outcome)
        ? { target: c.data.target, outcome: end.outcome, ...(end.reason ? { reason: end.reason } : {}), ...(end.error ? { error: end.error } : {}), requestId: c.request_id, at: c.at, failures: 1 }
        : 'ok')
    } else if (seen !== 'ok' && FAILED.has(end.outcome)) seen.failures++
  }
  return new Map([...latest].map(([token, byTarget]) => [token, [...byTarget.values()].filter((f): f is FailingCall => f !== 'ok')]))
}

/** Where a fix acts, so ids one fix mends share a group: a page, a server; one answer for every id otherwise (advice, a re-check, per-tool fixes). */
function fixKey(f: RowFix | null): string {
  switch (f?.kind) {
    case 'link': return f.href
    case 'login': case 'release': return f.server
    case 'run': return 'server' in f.fix ? `${f.fix.kind}:${f.fix.server}` : f.fix.kind
    default: return f?.kind ?? ''
  }
}

/** The Preflight page checking `ids` as the agent, where each row carries the button that fixes it. */
const preflightAs = (token: string, ids: readonly string[]) =>
  `/preflight?${new URLSearchParams([...ids.map((id) => ['id', id]), ['token', token], ['run', '1']])}`

/**
 * Where a cause's fix is done: a page the fix names (a profile, a token, a server's pins), else
 * the Preflight page for that cause's ids alone, whose rows act (Review & approve, Enable server,
 * Log in…) and then show the agent's view again. Advice has no place to go: its words are the fix.
 */
function fixLinkOf(token: string, fix: RowFix | null, ids: readonly string[]): Cause['fixLink'] {
  if (!fix || fix.kind === 'advice') return null
  return { href: fix.kind === 'link' ? fix.href : preflightAs(token, ids), label: fix.label }
}

/** An agent's ids still refused, one group per cause and fix; the ids of one group are what its fingerprint covers. */
function causesOf(token: string, still: Explained[]): Cause[] {
  const groups = new Map<string, Explained[]>()
  for (const e of still) {
    if (e.result.status !== 'unavailable') continue
    const key = `agent:${token}:${e.result.reason}:${fixKey(e.fix)}`
    groups.set(key, [...(groups.get(key) ?? []), e])
  }
  return [...groups].map(([key, list]) => {
    const first = list[0].result as Extract<Explained['result'], { status: 'unavailable' }>
    const ids = list.map((e) => e.result.id)
    return {
      key, fingerprint: createHash('sha256').update([...ids].sort().join('\n')).digest('hex').slice(0, 16),
      reason: first.reason, detail: first.detail, count: ids.length, ids: ids.slice(0, MAX_SHOWN),
      fixLink: fixLinkOf(token, list[0].fix, ids.slice(0, MAX_SHOWN)), deliberate: DELIBERATE.has(first.reason),
    }
  }).sort((a, b) => b.count - a.count)
}

/** An acknowledgement still holds: the item is as it was then, and its snooze (if any) has not ended. */
const holds = (ack: TriageAck | undefined, c: Cause, now: number): ack is TriageAck => !!ack && ack.fingerprint === c.fingerprint && (ack.until === null || ack.until > now)

/**
 * Agents whose recent checks were refused or whose recent calls failed, one entry per agent
 * token. Checks are judged again now: an id that has been fixed since drops out. A call counts
 * until a later call to the same tool succeeds (a fix is proven by a call, not by a check). A
 * token with nothing left drops out, and so does a deliberate block an operator acknowledged
 * (listed apart, until it changes or its snooze ends).
 * The operator's own dashboard checks are left out (they are the operator looking, not an agent blocked).
 */
function blockedAgents(db: Db, operator: string): { agents: BlockedAgent[]; acknowledged: AcknowledgedCause[] } {
  const records = [...listActivity(db, { verdict: 'blocked', limit: RECENT_BLOCKED }), ...listActivity(db, { verdict: 'unknown_ids', limit: RECENT_BLOCKED })]
    .sort((a, b) => b.id - a.id)
  const byToken = new Map<string, { lastRequestId: string; lastAt: number; checks: number; ids: Set<string>; unjudged: boolean }>()
  for (const r of records) {
    if (r.type !== 'preflight' || r.tier !== 'agent' || r.surface === 'dashboard' || !r.actor.startsWith('token:')) continue
    const token = r.actor.slice('token:'.length)
    const g = byToken.get(token) ?? { lastRequestId: r.requestId, lastAt: r.at, checks: 0, ids: new Set<string>(), unjudged: false }
    g.checks++
    for (const t of r.data.tools) {
      if (t.status === 'ready' || g.ids.has(t.id)) continue
      if (g.ids.size < MAX_JUDGED) g.ids.add(t.id)
      else g.unjudged = true
    }
    byToken.set(token, g)
  }
  const failing = failingCalls(db)
  const acks = triageAckMap(db)
  const now = Date.now()
  const agents: BlockedAgent[] = []
  const acknowledged: AcknowledgedCause[] = []
  for (const token of new Set([...byToken.keys(), ...failing.keys()])) {
    const row = tokenByName(db, token)
    if (!row) continue // revoked: no agent can be blocked under it any more
    const g = byToken.get(token)
    const still = g ? explainAt(db, operatorAs(operator, row), { ids: [...g.ids] }).filter((e) => e.result.status !== 'ready') : []
    const causes: Cause[] = []
    for (const c of causesOf(token, still)) {
      const ack = acks.get(c.key)
      if (c.deliberate && holds(ack, c, now)) acknowledged.push({ ...c, token, by: ack.actor, until: ack.until === null ? null : new Date(ack.until).toISOString() })
      else causes.push(c)
    }
    const calls = failing.get(token) ?? []
    if (causes.length || calls.length) {
      const last = calls[0]
      agents.push({
        token, lastRequestId: g?.lastRequestId ?? last.requestId, lastAt: g ? new Date(g.lastAt).toISOString() : last.at, checks: g?.checks ?? 0,
        causes, unjudged: g?.unjudged ?? false, failingCalls: calls.slice(0, MAX_SHOWN),
      })
    }
    if (agents.length === MAX_AGENTS) break
  }
  return { agents, acknowledged }
}

/**
 * Everything that needs an operator now, read from current state, each item carrying what its fix
 * needs. Cheap at any size: a tool's review loads when its panel opens; its findings count and the
 * over-ceiling scopes come from the worker (lib/dashboard/heavy.ts), none of them on this render.
 */
export function overview(db: Db, operator: string) {
  // only the tools an operator holds back are read, and no server's tool counts (none is shown)
  const states = serverStates(db)
  const gated = gatedInventory(db, states)
  const servers = states.map(serverStateRow)
  const active = servers.filter((s) => s.enabled && !s.quarantined)
  // only a listed server needs its facts (for its one action): not the hundreds that are fine
  const listed = (keep: (s: (typeof servers)[number]) => boolean, among = servers) => withFacts(db, among.filter(keep))
  return {
    // by urgency: a changed definition (a tool agents relied on, now withheld) before a new one
    tools: gated.filter((t) => t.status === 'tool_changed').concat(gated.filter((t) => t.status === 'tool_pending_approval')),
    blockedTools: gated.filter((t) => t.blocked),
    quarantined: listed((s) => s.quarantined),
    disabled: listed((s) => !s.enabled && !s.quarantined),
    loginNeeded: listed((s) => s.health === 'login_needed', active),
    unhealthy: listed((s) => s.health === 'unhealthy' || s.health === 'no_transport', active),
    connecting: listed((s) => s.health === 'starting' || s.health === 'unpublished', active),
    danglingPins: accessOverview(db).tokens.filter((t) => t.pinDangling),
    ...blockedAgents(db, operator),
  }
}
export type Overview = ReturnType<typeof overview>
