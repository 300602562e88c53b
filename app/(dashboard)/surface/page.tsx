import type { Metadata } from 'next'
import { SurfaceView } from '@/components/surface/surface-view'
import { PageHeader } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { searchValue, type SearchParams } from '@/lib/dashboard/search-params'
import { surfacePage } from '@/lib/dashboard/surface'
import { getDb } from '@/db/client'

export const metadata: Metadata = { title: 'Surface' }

export default async function SurfacePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const scope = searchValue((await searchParams).scope)
  if (!(await canViewPage(`/surface${scope ? `?scope=${encodeURIComponent(scope)}` : ''}`))) return null
  return (
    <>
      <PageHeader title="Surface">
        What each agent&apos;s tool list costs in tokens on every tools/list, and which of its tools read alike — the pairs a model is most likely to confuse.
      </PageHeader>
      <SurfaceView page={surfacePage(getDb(), scope || undefined)} />
    </>
  )
}
