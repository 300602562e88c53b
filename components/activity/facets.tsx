import Link from 'next/link'
import type { FacetCount, FacetField } from '@/db/queries/activity'

const titles: Record<FacetField, string> = { type: 'Type', actor: 'Actor', verdict: 'Verdict' }

export interface FacetLink extends FacetCount { href: string | null }

/** Counts per type, actor and verdict for the current filters; each value a link that adds it as a filter. */
export function ActivityFacets({ facets, window }: { facets: Record<FacetField, FacetLink[]>; window: number }) {
  return (
    <aside aria-labelledby="facets-title" className="mb-4 rounded-lg border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900">
      <h2 id="facets-title" className="text-sm font-semibold">Breakdown</h2>
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-300">in the latest {window.toLocaleString('en-GB').replace(/,/g, ' ')} records these filters match</p>
      {(Object.keys(titles) as FacetField[]).map((field) => (
        <div key={field} className="mb-2">
          <h3 className="text-xs font-medium">{titles[field]}</h3>
          {facets[field].length === 0 ? <p className="text-xs text-slate-600 dark:text-slate-300">none</p> : (
            <ul className="text-xs">
              {facets[field].map((f) => (
                <li key={f.value} data-testid="facet" data-facet={field} data-value={f.value} data-count={f.count} className="flex justify-between gap-2">
                  {f.href
                    ? <Link href={f.href} prefetch={false} className="min-w-0 break-all font-mono text-sky-700 underline dark:text-sky-300" aria-label={`${f.value}: ${f.count} records, filter by it`}>{f.value}</Link>
                    : <span className="min-w-0 break-all font-mono">{f.value}</span>}
                  <span className="tabular-nums">{f.count}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </aside>
  )
}
