import type { ActivityRecord } from './vocabulary'

/**
 * A record as people and JSON consumers see it: snake_case, an ISO time, a one-line summary.
 * Client-safe (no database code): the dashboard's live timeline renders these in the browser.
 */
type Presented<R> = R extends ActivityRecord ? {
  id: number
  request_id: string
  at: string
  type: R['type']
  surface: R['surface']
  actor: string
  tier: R['tier']
  verdict: string | null
  server: string | null
  summary: string
  data: R['data']
} : never
export type ActivityItem = Presented<ActivityRecord>

export function summarize(r: ActivityRecord): string {
  if (r.type === 'preflight') {
    const blocked = r.data.tools.filter((t) => t.status !== 'ready').map((t) => `${t.id} ${t.reason}`)
    return `${r.data.tools.length} id${r.data.tools.length === 1 ? '' : 's'}: ${blocked.join(', ') || 'all ready'}`
  }
  if (r.type === 'activity.pruned') return `${r.data.deleted} records before ${r.data.before}`
  if (r.type === 'pins.upgraded') return `${r.data.tools} pins to hash schema v${r.data.hash_schema}`
  if (r.type === 'secrets.encrypted') return `${r.data.secrets} stored secrets encrypted at rest`
  if (r.type === 'operator.signed_in' || r.type === 'operator.signed_out') return r.data.surface
  return r.data.target
}

export function presentActivity(r: ActivityRecord): ActivityItem {
  return {
    id: r.id, request_id: r.requestId, at: new Date(r.at).toISOString(), type: r.type, surface: r.surface, actor: r.actor,
    tier: r.tier, verdict: r.verdict, server: r.server, summary: summarize(r), data: r.data,
  } as ActivityItem // the same record, renamed: its type still decides its data
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
