import type { Metadata } from 'next'
import { getDb } from '@/db/client'
import { ApprovalsInboxView } from '@/components/approvals/inbox'
import { PageHeader } from '@/components/ui'
import { approvalsInbox } from '@/lib/dashboard/approvals'
import { canViewPage } from '@/lib/dashboard/operator'

export const metadata: Metadata = { title: 'Approvals' }

export default async function ApprovalsPage() {
  if (!(await canViewPage('/approvals'))) return null
  return (
    <>
      <PageHeader title="Approvals">Calls of tools under call approval wait here for an operator: approve or deny each exact call.</PageHeader>
      <ApprovalsInboxView initial={await approvalsInbox(getDb())} />
    </>
  )
}
