import type { Metadata } from 'next'
import { PreflightWorkbench } from '@/components/preflight/workbench'
import { PageHeader } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { loadPreflight } from '@/lib/dashboard/pages/preflight'
import { loggedInFromSearch, preflightFormFromSearch, preflightSearch, searchValue, type SearchParams } from '@/lib/dashboard/search-params'

export const metadata: Metadata = { title: 'Preflight' }

export default async function PreflightPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams
  const initial = preflightFormFromSearch(sp)
  const loggedIn = initial.ids.length > 0 ? loggedInFromSearch(sp) : null
  if (!(await canViewPage(`/preflight${preflightSearch(initial)}`))) return null
  return (
    <>
      <PageHeader title="Preflight">Is every tool this job needs ready — and if not, why, and what fixes it?</PageHeader>
      <PreflightWorkbench initial={initial} options={loadPreflight().options} autorun={searchValue(sp.run) === '1' && initial.ids.length > 0} loggedIn={loggedIn} />
    </>
  )
}
