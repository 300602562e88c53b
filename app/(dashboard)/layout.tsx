import { Nav } from '@/components/nav'
import { Providers } from '@/components/providers'
import { requireOperatorForLayout } from '@/lib/dashboard/operator'

// Every page here reads live state and the session cookie: never prerender at build time.
export const dynamic = 'force-dynamic'

/** The signed-in shell: nothing of it is sent without a valid session. Each page checks again. */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  await requireOperatorForLayout()
  return (
    <Providers>
      <Nav />
      <main className="mx-auto max-w-7xl px-4 py-6">{children}</main>
    </Providers>
  )
}
