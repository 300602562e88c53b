import type { Metadata } from 'next'
import Link from 'next/link'
import { AddServers } from '@/components/onboarding/add-server'
import { FirstRun } from '@/components/onboarding/first-run'
import { PageHeader } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { loadSetup } from '@/lib/dashboard/pages/setup'

export const metadata: Metadata = { title: 'Add servers' }

export default async function SetupPage() {
  if (!(await canViewPage('/setup'))) return null
  const { steps } = loadSetup()
  return (
    <>
      <PageHeader title="Add servers">
        A server added here is quarantined: nothing of it is served until you inspect it, review every tool and release it on its page.
        Then <Link className="underline" href="/connect">connect a client</Link>.
      </PageHeader>
      {steps && <FirstRun steps={steps} />}
      <AddServers />
    </>
  )
}
