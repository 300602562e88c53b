import 'server-only'
import { definitionGroupNames } from '@/lib/core/definition'
import { getDb } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { readLogs } from '@/db/queries/upstream'
import { definitionReview, definitionRows, toolReview } from '@/lib/approvals/review'
import { firstApprovals } from '@/lib/approvals/two-person'
import type { InventoryTool } from '@/lib/catalog/inventory'
import { serverDetail, serverRows, type ServerRow } from '@/lib/catalog/servers'
import { shownPins } from '../exposure'
import { heavy } from '../heavy'
import { listQuery, matches, pageOf } from '../lists'
import { releaseExposure } from '../row-details'
import type { SearchParams } from '../search-params'
import { hasLoggedIn, serverFacts, withFacts } from '../server-facts'

export const SHOWS = ['all', 'attention', 'quarantined', 'disabled', 'pending', 'unhealthy'] as const
export const SORTS = ['name', 'attention', 'tools'] as const

const toReview = (s: ServerRow) => s.tools.pending + s.tools.changed
const unhealthy = (s: ServerRow) => s.enabled && !s.quarantined && s.health !== 'ready'
const keep: Record<(typeof SHOWS)[number], (s: ServerRow) => boolean> = {
  all: () => true,
  attention: (s) => s.quarantined || !s.enabled || unhealthy(s) || toReview(s) > 0,
  quarantined: (s) => s.quarantined, disabled: (s) => !s.enabled, pending: (s) => toReview(s) > 0, unhealthy,
}
const urgency = (s: ServerRow) => (unhealthy(s) ? 4 : 0) + (s.quarantined ? 2 : 0) + (toReview(s) > 0 ? 1 : 0)
const order: Record<(typeof SORTS)[number], (a: ServerRow, b: ServerRow) => number> = {
  name: (a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }),
  attention: (a, b) => urgency(b) - urgency(a) || toReview(b) - toReview(a) || order.name(a, b),
  tools: (a, b) => b.tools.total - a.tools.total || order.name(a, b),
}

/** `/servers`: the servers the URL asks for (search, filter, sort), one page of them with their actions' facts. */
export function loadServers(sp: SearchParams) {
  const db = getDb()
  const all = serverRows(db)
  const query = listQuery(sp, SHOWS, SORTS)
  // the facts (what a row's action may do) only for the rows shown
  const shown = pageOf(all.filter((s) => keep[query.show](s) && matches(query.q, s.name, s.transport)).sort(order[query.sort]), query.page)
  return { any: all.length > 0, query, shown, rows: withFacts(db, shown.items) }
}

export const TOOL_SHOWS = ['all', 'review', 'blocked', 'served', 'withheld'] as const
export const TOOL_SORTS = ['name', 'status'] as const
const keepTool: Record<(typeof TOOL_SHOWS)[number], (t: InventoryTool) => boolean> = {
  all: () => true, review: (t) => t.approval === 'pending' || t.approval === 'changed', blocked: (t) => t.blocked,
  served: (t) => t.status === 'callable', withheld: (t) => t.status !== 'callable',
}
const toolOrder: Record<(typeof TOOL_SORTS)[number], (a: InventoryTool, b: InventoryTool) => number> = {
  name: (a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }),
  status: (a, b) => a.status.localeCompare(b.status) || toolOrder.name(a, b),
}

/** `/servers/<name>`: one server, its release review, the page of tools the URL asks for with their reviews, its definitions and log; null when no such server is configured. */
export async function loadServer(name: string, sp: SearchParams) {
  const db = getDb()
  const server = serverDetail(db, name)
  if (!server) return null
  const exposure = server.quarantined ? releaseExposure(db, name) : undefined
  // what releasing exactly these definitions would bring over the overlap ceiling: shown before asking
  // (scored in the worker, off the request loop: lib/dashboard/heavy.ts)
  const overCeiling = exposure ? await heavy(db, { kind: 'release-crossings', server: name, shown: shownPins(exposure) }) : []
  // the tools asked for (search, filter, sort), one page of them
  const toolQuery = listQuery(sp, TOOL_SHOWS, TOOL_SORTS)
  const tools = pageOf(server.toolList.filter((t) => keepTool[toolQuery.show](t) && matches(toolQuery.q, t.name, t.description)).sort(toolOrder[toolQuery.sort]), toolQuery.page)
  // what an approve from the tool table shows first: every shown pending or changed tool's full review
  const pending = tools.items.filter((t) => t.approval === 'pending' || t.approval === 'changed')
  const surfaces = await Promise.all(pending.map((t) => heavy(db, { kind: 'review-surface', id: t.id })))
  // its instructions, prompts, resources and templates, each with the review an approve shows first
  const definitions = definitionGroupNames.flatMap((g) => definitionRows(db, g, name).map((r) => definitionReview(db, g, r.id)))
  return {
    server, exposure, overCeiling, toolQuery, tools, definitions,
    reviews: Object.fromEntries(pending.map((t, i) => [t.id, toolReview(db, t.id, surfaces[i])])),
    facts: serverFacts(db, name)!,
    loggedIn: hasLoggedIn(db, name),
    logs: readLogs(db, name, 100),
    // its last release names its person
    released: listActivity(db, { server: name, type: 'server.unquarantined', limit: 1 })[0],
    releaseFirst: firstApprovals(db, 'release')[name],
    toolFirst: firstApprovals(db, 'tool'),
  }
}
