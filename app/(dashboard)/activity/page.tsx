import type { Metadata } from 'next'
import Link from 'next/link'
import { ExportLinks } from '@/components/activity/export-links'
import { ActivityFacets } from '@/components/activity/facets'
import { SavedViews } from '@/components/activity/saved-views'
import { ActivityFilters } from '@/components/activity/filters'
import { Timeline } from '@/components/activity/timeline'
import { VerdictChart } from '@/components/activity/verdict-chart'
import { ErrorNote } from '@/components/error-note'
import { buttonClass, PageHeader } from '@/components/ui'
import {
  activityFilterFromSearch, chartSpans, FACET_WINDOW, facetFields, facetParam, DEFAULT_SPAN, filterKeys, localInputValue,
} from '@/lib/dashboard/activity'
import { canViewPage } from '@/lib/dashboard/operator'
import { loadActivity } from '@/lib/dashboard/pages/activity'
import { chartSpanSchema, type ChartSpan } from '@/lib/schemas/activity'
import { searchValue, type SearchParams } from '@/lib/dashboard/search-params'

export const metadata: Metadata = { title: 'Activity' }

const activityHref = (params: Record<string, string>) => {
  const q = new URLSearchParams(params).toString()
  return `/activity${q ? `?${q}` : ''}`
}

export default async function ActivityPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams
  // the filters as written in the URL (kept verbatim for the form, so a bad one can be corrected there)
  const typed = Object.fromEntries(filterKeys.map((k) => [k, searchValue(sp[k])]).filter(([, v]) => v)) as Record<string, string>
  const spanParam = searchValue(sp.span)
  if (!(await canViewPage(activityHref(spanParam ? { ...typed, span: spanParam } : typed)))) return null
  // a bad filter is left out of everything the page shows, streams and links to, and named above the list
  const { filter, problems, applied: raw } = activityFilterFromSearch(sp)
  const span = chartSpanSchema.safeParse(spanParam ?? DEFAULT_SPAN)
  if (!span.success) problems.push(`span: ${span.error.issues[0].message}`)
  const withSpan = span.success && spanParam ? { ...raw, span: spanParam } : raw
  const { latest, items, nextBefore, facets: counted, chart, servers, tokens: tokenNames, people } = loadActivity(filter, span.success ? span.data : DEFAULT_SPAN, raw)
  // a facet link narrows the current view: its other filters stay, paging starts again
  const facets = Object.fromEntries(facetFields.map((field) => [field, counted[field].map((c) => {
    const param = facetParam(field, c.value)
    return { ...c, href: param && activityHref({ ...withSpan, [param[0]]: param[1] }) }
  })])) as Parameters<typeof ActivityFacets>[0]['facets']
  const spanLinks = (Object.keys(chartSpans) as ChartSpan[]).map((s) => ({ span: s, href: activityHref(s === DEFAULT_SPAN ? raw : { ...raw, span: s }) }))
  const formValues = {
    ...typed,
    from: filter.from === undefined ? undefined : localInputValue(filter.from),
    to: filter.to === undefined ? undefined : localInputValue(filter.to),
  }
  const query = new URLSearchParams(raw).toString()
  const after = Math.max(latest, items[0]?.id ?? 0)
  const newer = filter.before !== undefined
  return (
    <>
      <PageHeader title="Activity">Every check on every surface, every operator action, every call — grouped by request id, newest first.</PageHeader>
      {/* keyed: its fields are uncontrolled, and a link (a chart bar, a picker) changes them from outside */}
      <ActivityFilters key={activityHref(withSpan)} values={formValues} servers={servers} tokens={tokenNames} people={people} span={span.success && spanParam ? spanParam : undefined} />
      <p className="-mt-2 mb-4 flex flex-wrap gap-2 text-sm">
        <span className="text-slate-600 dark:text-slate-300">Export the records these filters match (up to 10 000):</span>
        <ExportLinks query={query} />
      </p>
      <SavedViews query={new URLSearchParams(withSpan).toString()} />
      {problems.length > 0 && <div className="mb-4"><ErrorNote error={`Ignored filter: ${problems.join('; ')}. The list shows what the other filters match, without ${problems.length === 1 ? 'this one' : 'these'}.`} fix="Correct the filter or clear it." /></div>}
      {chart
        ? <VerdictChart chart={chart} filters={raw} spans={spanLinks} />
        : <p className="mb-4 text-xs text-slate-600 dark:text-slate-300">The chart counts checks and tool calls: records of type {filter.type} are neither.</p>}
      <div className="gap-4 lg:grid lg:grid-cols-[minmax(0,1fr)_16rem]">
        <div className="min-w-0">
          <Timeline key={`${query}|${filter.before ?? ''}|${after}`} initial={items} filters={query} after={after} live={!newer} />
          <nav aria-label="Pages" className="mt-4 flex gap-2">
            {newer && <Link className={buttonClass()} href={activityHref(withSpan)}>Newest</Link>}
            {nextBefore !== null && <Link className={buttonClass()} href={activityHref({ ...withSpan, before: String(nextBefore) })}>Older →</Link>}
          </nav>
        </div>
        <ActivityFacets facets={facets} window={FACET_WINDOW} />
      </div>
    </>
  )
}
