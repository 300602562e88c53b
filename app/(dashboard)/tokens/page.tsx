import type { Metadata } from 'next'
import { ProfilesPanel } from '@/components/access/profiles-panel'
import { TokensPanel } from '@/components/access/tokens-panel'
import { PageHeader } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { loadTokens } from '@/lib/dashboard/pages/tokens'

export const metadata: Metadata = { title: 'Tokens & profiles' }

export default async function TokensPage() {
  if (!(await canViewPage('/tokens'))) return null
  const { access: data, anonymousProfile } = loadTokens()
  return (
    <>
      <PageHeader title="Tokens & profiles">An agent token&apos;s scope is its allowed servers ∩ its profile pin ∩ the profile it asks for.</PageHeader>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <TokensPanel data={data} anonymousProfile={anonymousProfile} />
        <ProfilesPanel data={data} />
      </div>
    </>
  )
}
