import type { Metadata } from 'next'
import { ApprovalsInboxView } from '@/components/approvals/inbox'
import { PageHeader } from '@/components/ui'
import { pagePrincipal } from '@/lib/dashboard/operator'
import { loadApprovals } from '@/lib/dashboard/pages/approvals'
import { can } from '@/lib/auth/roles'

export const metadata: Metadata = { title: 'Held calls' }

export default async function ApprovalsPage() {
  const me = await pagePrincipal('/approvals')
  if (!me) return null
  return (
    <>
      <PageHeader title="Held calls">Calls of tools under call approval wait here for an operator: approve or deny each exact call. Tools waiting for their definition to be approved are on the Overview and their server&apos;s page.</PageHeader>
      <ApprovalsInboxView initial={await loadApprovals(can(me.role, 'view_arguments'))} />
    </>
  )
}
