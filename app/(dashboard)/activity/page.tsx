import type { Metadata } from 'next'
import Link from 'next/link'
import { ActivityFilters } from '@/components/activity/filters'
import { Timeline } from '@/components/activity/timeline'
import { ErrorNote } from '@/components/error-note'
import { buttonClass, PageHeader } from '@/components/ui'
import { activityFilterFromSearch, activityPage, filterKeys } from '@/lib/dashboard/activity'
import { requireOperator } from '@/lib/dashboard/operator'
import { searchValue, type SearchParams } from '@/lib/dashboard/search-params'
import { serverNames } from '@/db/queries/servers'
import { getDb } from '@/db/client'

export const metadata: Metadata = { title: 'Activity' }

export default async function ActivityPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams
  // the filters as written in the URL (kept verbatim for the form and the links)
  const raw = Object.fromEntries(filterKeys.map((k) => [k, searchValue(sp[k])]).filter(([, v]) => v)) as Record<string, string>
  const query = new URLSearchParams(raw).toString()
  await requireOperator(`/activity${query ? `?${query}` : ''}`)
  const { filter, problems } = activityFilterFromSearch(sp)
  const db = getDb()
  const { items, nextBefore } = activityPage(db, filter)
  // a server filter from a link may name a server removed since: keep it pickable
  const servers = [...new Set([...serverNames(db), ...(raw.server ? [raw.server] : [])])]
  const exportHref = (format: 'json' | 'csv') => `/activity/export?${new URLSearchParams({ format, ...raw })}`
  const newer = filter.before !== undefined
  return (
    <>
      <PageHeader title="Activity">Every check on every surface, every operator action, every call — grouped by request id, newest first.</PageHeader>
      <ActivityFilters values={raw} servers={servers} />
      <p className="-mt-2 mb-4 flex flex-wrap gap-2 text-sm">
        <span className="text-slate-600 dark:text-slate-300">Export the records these filters match (up to 10 000):</span>
        <a className="text-sky-700 underline dark:text-sky-300" href={exportHref('json')} download>JSON</a>
        <a className="text-sky-700 underline dark:text-sky-300" href={exportHref('csv')} download>CSV</a>
      </p>
      {problems.length > 0 && <div className="mb-4"><ErrorNote error={`Ignored filter: ${problems.join('; ')}`} fix="Correct the filter or clear it." /></div>}
      <Timeline key={`${query}|${filter.before ?? ''}`} initial={items} query={query ? `?${query}` : ''} live={!newer} />
      <nav aria-label="Pages" className="mt-4 flex gap-2">
        {newer && <Link className={buttonClass()} href={`/activity${query ? `?${query}` : ''}`}>Newest</Link>}
        {nextBefore !== null && <Link className={buttonClass()} href={`/activity?${new URLSearchParams({ ...raw, before: String(nextBefore) })}`}>Older →</Link>}
      </nav>
    </>
  )
}
