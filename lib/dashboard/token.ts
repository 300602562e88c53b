import 'server-only'
import type { Db } from '@/db/client'
import { tokenByName } from '@/db/queries/access'
import { listActivity } from '@/db/queries/activity'
import { readSnapshot } from '@/db/queries/preflight-state'
import { serverNames } from '@/db/queries/servers'
import { knownToolIds } from '@/db/queries/tools'
import { presentRecords } from '@/lib/activity/present-records'
import { narrowingOf, type Narrowing } from '@/lib/preflight/evaluate'
import { explainAt, operatorAs } from './explain'

const RECENT = 30
// what the agent experienced: its latest checks and calls, joined per tool
const EXPERIENCE = 300

type Outcome = 'ok' | 'tool_error' | 'refused' | 'failed' | 'held' | 'denied' | 'expired' | 'cancelled' | 'running' | 'unknown'

/** One tool as this agent met it lately: its checks and its calls, the latest first. */
export interface ToolExperience {
  id: string
  checks: { ready: number; refused: number }
  calls: Partial<Record<Outcome, number>>
  /** the latest call's end (or where it stands), its duration and request */
  last: { outcome: Outcome; reason?: string; error?: string; duration_ms?: number; at: string; request_id: string } | null
  /** a call failed before the latest, and the latest succeeded: fixed, as a real call proves */
  fixed: boolean
}

/**
 * The agent's real experience: per tool, what its checks said and how its calls ended (refused,
 * failed, held, succeeded, with their durations), worst first. A check saying ready is not the
 * end of it: a tool counts as fixed only once a call to it succeeds after one that did not.
 */
export function agentExperience(db: Db, token: string) {
  const items = presentRecords(db, listActivity(db, { actor: `token:${token}`, limit: EXPERIENCE }))
  const byTool = new Map<string, ToolExperience>()
  const of = (id: string) => {
    let t = byTool.get(id)
    if (!t) byTool.set(id, (t = { id, checks: { ready: 0, refused: 0 }, calls: {}, last: null, fixed: false }))
    return t
  }
  let checks = 0
  let refusedChecks = 0
  const calls: Partial<Record<Outcome, number>> = {}
  for (const it of items) { // newest first
    if (it.type === 'preflight') {
      checks++
      if (it.verdict !== 'ready') refusedChecks++
      for (const r of it.data.tools) of(r.id).checks[r.status === 'ready' ? 'ready' : 'refused']++
    } else if (it.type === 'tool.call' && it.call) {
      const t = of(it.data.target)
      const outcome: Outcome = it.call.state === 'ended' ? it.call.end.outcome : it.call.state
      t.calls[outcome] = (t.calls[outcome] ?? 0) + 1
      calls[outcome] = (calls[outcome] ?? 0) + 1
      if (!t.last) {
        const end = it.call.state === 'ended' ? it.call.end : undefined
        t.last = { outcome, ...(end?.reason ? { reason: end.reason } : {}), ...(end?.error ? { error: end.error } : {}), ...(end ? { duration_ms: end.duration_ms } : {}), at: it.at, request_id: it.request_id }
      } else if (t.last.outcome === 'ok' && outcome !== 'ok') t.fixed = true
    }
  }
  const rank = (t: ToolExperience) => (t.last === null ? (t.checks.refused ? 1 : 3) : t.last.outcome === 'ok' ? 2 : 0)
  return {
    checks, refusedChecks, calls,
    tools: [...byTool.values()].sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : 1)),
  }
}
export type AgentExperience = ReturnType<typeof agentExperience>

/**
 * One agent token as its own page shows it: its scope and what that scope yields server by
 * server, every known tool it cannot use now (with the operator-tier cause and the fix), and
 * its recent checks and calls. Judged by the shared evaluator; nothing here is recorded.
 */
export function tokenDetail(db: Db, name: string, operator: string) {
  const token = tokenByName(db, name)
  if (!token) return undefined
  const viewer = operatorAs(operator, token)
  const servers = readSnapshot(db, (state) => {
    const narrowing = narrowingOf(state, viewer)
    return serverNames(db).map((server): { server: string; excludedBy: Narrowing | null } => ({ server, excludedBy: narrowing(server) }))
  })
  const judged = explainAt(db, viewer, { ids: knownToolIds(db) })
  return {
    token: { name: token.name, allowedServers: token.allowedServers, profilePin: token.profilePin, createdAt: new Date(token.createdAt).toISOString() },
    servers,
    usable: judged.filter((e) => e.result.status === 'ready').length,
    blocked: judged.filter((e) => e.result.status !== 'ready'),
    recent: presentRecords(db, listActivity(db, { actor: `token:${token.name}`, limit: RECENT })),
    experience: agentExperience(db, token.name),
  }
}
export type TokenDetail = NonNullable<ReturnType<typeof tokenDetail>>

type Explained = TokenDetail['blocked'][number]

/** A cause many ids share: one reason with one fix ("24 ids outside profile team-07 → Edit profile team-07"). */
export interface CauseGroup { key: string; reason: string; fix: Explained['fix']; entries: Explained[] }

/**
 * The ids a token cannot use, grouped by cause: the same reason with the same fix is one group,
 * largest first; a fix made per id (approve this tool) groups by reason alone. One shared fix
 * then fixes the whole group, and a page lists groups, not 4,000 rows.
 */
export function causeGroups(blocked: readonly Explained[]): CauseGroup[] {
  const groups = new Map<string, CauseGroup>()
  for (const e of blocked) {
    if (e.result.status !== 'unavailable') continue
    const shared = e.fix && (e.fix.kind === 'link' || e.fix.kind === 'release' || e.fix.kind === 'login') ? e.fix
      : e.fix?.kind === 'advice' ? e.fix : null
    const key = `${e.result.reason}${shared ? `:${'label' in shared ? shared.label : shared.text}` : ''}`
    const g = groups.get(key) ?? groups.set(key, { key, reason: e.result.reason, fix: shared, entries: [] }).get(key)!
    g.entries.push(e)
  }
  return [...groups.values()].sort((a, b) => b.entries.length - a.entries.length || (a.key < b.key ? -1 : 1))
}
