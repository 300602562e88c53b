import 'server-only'
import type { Db } from '@/db/client'
import { tokens } from '@/db/queries/access'
import { listActivity, requestIdsStartingWith } from '@/db/queries/activity'
import { serverNames } from '@/db/queries/servers'
import { knownTools } from '@/db/queries/tools'
import { REQUEST_ID_RE } from '@/lib/schemas/request-id'

const LIMIT = 8
/** A request id this long or longer also finds the ids it begins (a partial id pasted from a log); a shorter one only itself. */
const REQUEST_PREFIX_MIN = 8

export interface SearchHit { kind: 'tool' | 'server' | 'token' | 'request'; label: string; href: string }

/**
 * The header's search: tool ids, servers and agent tokens containing the text (case-insensitive,
 * prefix matches first), and the request ids on the record it names: itself, or — from
 * REQUEST_PREFIX_MIN characters — every id it begins, newest first.
 */
export function globalSearch(db: Db, raw: string): SearchHit[] {
  const q = raw.trim()
  if (!q) return []
  const needle = q.toLowerCase()
  const matching = (names: string[]) => names
    .filter((n) => n.toLowerCase().includes(needle))
    .sort((a, b) => Number(!a.toLowerCase().startsWith(needle)) - Number(!b.toLowerCase().startsWith(needle)) || (a < b ? -1 : 1))
    .slice(0, LIMIT)
  const requests = !REQUEST_ID_RE.test(q) ? []
    : q.length >= REQUEST_PREFIX_MIN ? requestIdsStartingWith(db, q, LIMIT)
      : listActivity(db, { requestId: q, limit: 1 }).length > 0 ? [q] : []
  return [
    ...requests.map((id) => ({ kind: 'request' as const, label: id, href: `/activity/${encodeURIComponent(id)}` })),
    ...matching(knownTools(db).map((t) => `${t.server}:${t.name}`)).map((id) => ({ kind: 'tool' as const, label: id, href: `/preflight?id=${encodeURIComponent(id)}` })),
    ...matching(serverNames(db)).map((s) => ({ kind: 'server' as const, label: s, href: `/servers/${encodeURIComponent(s)}` })),
    ...matching(tokens(db).map((t) => t.name)).map((t) => ({ kind: 'token' as const, label: t, href: `/tokens/${encodeURIComponent(t)}` })),
  ]
}
