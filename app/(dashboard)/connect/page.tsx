import type { Metadata } from 'next'
import { headers } from 'next/headers'
import Link from 'next/link'
import { ConnectClients } from '@/components/onboarding/connect-clients'
import { PageHeader } from '@/components/ui'
import { toolInventory } from '@/lib/catalog/inventory'
import { accessOverview } from '@/lib/dashboard/access'
import { canViewPage } from '@/lib/dashboard/operator'
import { boundaryFromEnv, publicOrigin } from '@/lib/http/boundary'
import { getDb } from '@/db/client'

export const metadata: Metadata = { title: 'Connect a client' }

export default async function ConnectPage() {
  if (!(await canViewPage('/connect'))) return null
  const db = getDb()
  const h = await headers()
  // /mcp is served on the origin the browser reached the dashboard at
  const origin = publicOrigin(boundaryFromEnv(), (name) => h.get(name)) ?? 'http://127.0.0.1:3000'
  const access = accessOverview(db)
  // the example call: a served tool, one that says it only reads where there is one
  const served = toolInventory(db).filter((t) => t.status === 'callable')
  const example = (served.find((t) => t.annotations?.readOnlyHint === true) ?? served[0])?.id ?? '<server>:<tool>'
  return (
    <>
      <PageHeader title="Connect a client">
        Agents reach every released server through one endpoint, <code>{origin}/mcp</code>, with an agent token (without one they get 401).
        A token&apos;s secret is shown only when it is made: create one here, or paste one you kept. Manage them on <Link className="underline" href="/tokens">Tokens &amp; profiles</Link>.
      </PageHeader>
      <ConnectClients origin={origin} access={access} exampleTool={example} />
    </>
  )
}
