import 'server-only'
import type { Db } from '@/db/client'
import { tokenByName } from '@/db/queries/access'
import { listActivity } from '@/db/queries/activity'
import { toolInventory } from '@/lib/catalog/inventory'
import { toolReview } from '@/lib/approvals/review'
import { serverRows } from '@/lib/catalog/servers'
import { scopesOverCeiling } from '@/lib/surface/ceiling'
import { scopeLabel } from '@/lib/surface/report'
import { accessOverview } from './access'
import { scopeKey } from './surface'
import { explainAt, operatorAs, type Explained } from './explain'
import { withFacts } from './server-facts'

// how far back "recent blocked checks" reaches, per verdict index
const RECENT_BLOCKED = 100
const MAX_AGENTS = 8
// An agent chooses how many ids it asks for and what they are: the Overview judges again at most
// MAX_JUDGED of an agent's refused ids (its latest first) and lists MAX_SHOWN, so a flood of
// refused checks costs a bounded page, never one row per id ever asked for.
const MAX_JUDGED = 50
const MAX_SHOWN = 10

export interface BlockedAgent {
  token: string
  /** the latest blocked check of this token, and how many of its recent checks were blocked */
  lastRequestId: string
  lastAt: string
  checks: number
  /** the ids those checks were refused that are still not ready now, with the cause and the fix (at most MAX_SHOWN) */
  stillBlocked: Explained[]
  /** how many more of the ids judged again are still blocked */
  more: number
  /** whether these checks refused more ids than were judged again */
  unjudged: boolean
}

/**
 * Agents whose recent checks were refused, one entry per agent token, judged again now: an id
 * that has been fixed since drops out, and a token with nothing left to fix drops out too.
 * The operator's own dashboard checks are left out (they are the operator looking, not an agent blocked).
 */
function blockedAgents(db: Db, operator: string): BlockedAgent[] {
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
  const out: BlockedAgent[] = []
  for (const [token, g] of byToken) {
    const row = tokenByName(db, token)
    if (!row) continue // revoked: no agent can be blocked under it any more
    const still = explainAt(db, operatorAs(operator, row), { ids: [...g.ids] }).filter((e) => e.result.status !== 'ready')
    if (still.length) {
      out.push({
        token, lastRequestId: g.lastRequestId, lastAt: new Date(g.lastAt).toISOString(), checks: g.checks,
        stillBlocked: still.slice(0, MAX_SHOWN), more: Math.max(0, still.length - MAX_SHOWN), unjudged: g.unjudged,
      })
    }
    if (out.length === MAX_AGENTS) break
  }
  return out
}

/** Everything that needs an operator now, read from current state, each item carrying what its fix needs. */
export function overview(db: Db, operator: string) {
  const servers = withFacts(db, serverRows(db))
  const inventory = toolInventory(db)
  const active = servers.filter((s) => s.enabled && !s.quarantined)
  return {
    tools: inventory.filter((t) => t.status === 'tool_pending_approval' || t.status === 'tool_changed').map((t) => ({ ...t, review: toolReview(db, t.id) })),
    blockedTools: inventory.filter((t) => t.blocked),
    quarantined: servers.filter((s) => s.quarantined),
    disabled: servers.filter((s) => !s.enabled && !s.quarantined),
    loginNeeded: active.filter((s) => s.health === 'login_needed'),
    unhealthy: active.filter((s) => s.health === 'unhealthy'),
    connecting: active.filter((s) => s.health === 'starting' || s.health === 'unpublished'),
    danglingPins: accessOverview(db).tokens.filter((t) => t.pinDangling),
    agents: blockedAgents(db, operator),
    overCeiling: scopesOverCeiling(db).map((c) => ({ key: scopeKey(c.scope), label: scopeLabel(c.scope), ...c.pair, ceiling: c.ceiling })),
  }
}
export type Overview = ReturnType<typeof overview>
