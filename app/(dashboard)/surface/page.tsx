import type { Metadata } from 'next'
import { Suspense } from 'react'
import { SurfaceView } from '@/components/surface/surface-view'
import { PageHeader } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { searchValue, type SearchParams } from '@/lib/dashboard/search-params'
import { loadSurface } from '@/lib/dashboard/pages/surface'

export const metadata: Metadata = { title: 'Surface' }

/** Scored in the worker (every scope's pairs): the page is sent at once, the report when it lands. */
async function Report({ report }: ReturnType<typeof loadSurface>) {
  return <SurfaceView page={await report} />
}

export default async function SurfacePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const scope = searchValue((await searchParams).scope)
  if (!(await canViewPage(`/surface${scope ? `?scope=${encodeURIComponent(scope)}` : ''}`))) return null
  return (
    <>
      <PageHeader title="Surface">
        What each agent&apos;s tool list costs in tokens on every tools/list, and which of its tools read alike — the pairs a model is most likely to confuse.
      </PageHeader>
      <Suspense key={scope} fallback={<p className="text-sm text-slate-600 dark:text-slate-300" data-testid="surface-pending">Scoring every scope&apos;s tools against each other…</p>}>
        <Report {...loadSurface(scope || undefined)} />
      </Suspense>
    </>
  )
}
