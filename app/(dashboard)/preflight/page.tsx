import type { Metadata } from 'next'
import { PreflightWorkbench } from '@/components/preflight/workbench'
import { PageHeader } from '@/components/ui'
import { preflightOptions } from '@/lib/dashboard/preflight'
import { canViewPage } from '@/lib/dashboard/operator'
import { preflightFormFromSearch, preflightSearch, searchValue, type SearchParams } from '@/lib/dashboard/search-params'
import { getDb } from '@/db/client'

export const metadata: Metadata = { title: 'Preflight' }

export default async function PreflightPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams
  const initial = preflightFormFromSearch(sp)
  if (!(await canViewPage(`/preflight${preflightSearch(initial)}`))) return null
  return (
    <>
      <PageHeader title="Preflight">Is every tool this job needs ready — and if not, why, and what fixes it?</PageHeader>
      <PreflightWorkbench initial={initial} options={preflightOptions(getDb())} autorun={searchValue(sp.run) === '1' && initial.ids.length > 0} />
    </>
  )
}
