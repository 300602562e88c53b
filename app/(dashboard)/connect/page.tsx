import type { Metadata } from 'next'
import { headers } from 'next/headers'
import Link from 'next/link'
import { ConnectClients } from '@/components/onboarding/connect-clients'
import { PageHeader } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { loadConnect } from '@/lib/dashboard/pages/connect'
import { boundaryFromEnv, publicOrigin } from '@/lib/http/boundary'

export const metadata: Metadata = { title: 'Connect a client' }

export default async function ConnectPage() {
  if (!(await canViewPage('/connect'))) return null
  const h = await headers()
  // /mcp is served on the origin the browser reached the dashboard at
  const origin = publicOrigin(boundaryFromEnv(), (name) => h.get(name)) ?? 'http://127.0.0.1:3000'
  const { access, exampleTool } = loadConnect()
  return (
    <>
      <PageHeader title="Connect a client">
        Agents reach every released server through one endpoint, <code>{origin}/mcp</code>, with an agent token (without one they get 401).
        A token&apos;s secret is shown only when it is made: create one here, or paste one you kept. Manage them on <Link className="underline" href="/tokens">Tokens &amp; profiles</Link>.
      </PageHeader>
      <ConnectClients origin={origin} access={access} exampleTool={exampleTool} />
    </>
  )
}
