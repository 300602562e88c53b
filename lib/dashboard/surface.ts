import 'server-only'
import type { Db } from '@/db/client'
import { readSettings } from '@/db/queries/settings'
import { allScopes } from '@/lib/surface/ceiling'
import { sharedTerms, type OverlapPair } from '@/lib/surface/overlap'
import { CLOSEST, reportOf, scopeLabel, servedList, type SurfaceReport, type SurfaceScope } from '@/lib/surface/report'

/** How many changes the page previews (the pairs it shows are a scope's CLOSEST). */
const PREVIEWED_CHANGES = 5

/** A scope in the URL: "catalog", "profile:<name>" or "token:<name>". */
export const scopeKey = (s: SurfaceScope) => (s.kind === 'catalog' ? 'catalog' : `${s.kind}:${s.name}`)

export interface ScopeSummary { key: string; label: string; tools: number; list_tokens: number; max_overlap: OverlapPair | null; over: boolean }
export interface PairView extends OverlapPair { a_text: string; b_text: string; shared: string[] }
/** What withholding one tool from the scope would change, before anyone does it. */
export interface ChangePreview { id: string; saves: number; max_after: OverlapPair | null; removes_closest: boolean }

export interface SurfacePage {
  ceiling: number | null
  scopes: ScopeSummary[]
  selected: SurfaceReport & { key: string; label: string }
  pairs: PairView[]
  changes: ChangePreview[]
}

/**
 * The Surface page: every scope's cost and closest pair, then one scope in detail. A scope the
 * URL names that does not exist falls back to the whole catalog (the page says so).
 */
export function surfacePage(db: Db, key: string | undefined): SurfacePage & { unknown?: string } {
  const ceiling = readSettings(db).maxDescriptionOverlap
  const lists = allScopes(db).map((scope) => ({ scope, list: servedList(db, scope) }))
  // every scope's closest pairs (as the ceiling check scores them, so the two share the work) …
  const summaries = lists.map(({ scope, list }) => reportOf(scope, list, CLOSEST))
  const scopes = summaries.map((r) => ({
    key: scopeKey(r.scope), label: scopeLabel(r.scope), tools: r.tools, list_tokens: r.list_tokens, max_overlap: r.max_overlap,
    over: ceiling !== null && r.max_overlap !== null && r.max_overlap.score > ceiling,
  }))
  const at = Math.max(0, scopes.findIndex((s) => s.key === (key ?? 'catalog')))
  const { scope, list } = lists[at]
  // … and the one shown with them
  const report = summaries[at]
  const text = new Map(report.catalog.map((t) => [t.id, t.description]))
  // scored as the overlap scores them: the tool's own name (no server part) and its description
  const words = (id: string) => `${id.slice(id.indexOf(':') + 1)} ${text.get(id) ?? ''}`
  const pairs = report.pairs.map((p) => ({
    ...p, a_text: text.get(p.a) ?? '', b_text: text.get(p.b) ?? '', shared: sharedTerms(words(p.a), words(p.b)),
  }))
  // the closest pair's two tools and the heaviest ones: the changes an operator would weigh
  const candidates = [...new Set([...(report.max_overlap ? [report.max_overlap.a, report.max_overlap.b] : []), ...report.heaviest.map((h) => h.id)])].slice(0, PREVIEWED_CHANGES)
  const changes = candidates.map((id) => {
    const after = reportOf(scope, list.filter((t) => t.name !== id), CLOSEST)
    const closest = report.max_overlap
    return {
      id, saves: report.list_tokens - after.list_tokens, max_after: after.max_overlap,
      removes_closest: closest !== null && (closest.a === id || closest.b === id),
    }
  })
  return {
    ceiling, scopes, pairs, changes,
    selected: { ...report, key: scopes[at].key, label: scopes[at].label },
    ...(key !== undefined && scopes[at].key !== key ? { unknown: key } : {}),
  }
}
