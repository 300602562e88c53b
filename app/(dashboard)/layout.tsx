import { Nav } from '@/components/nav'
import { Providers } from '@/components/providers'
import { PersonProvider } from '@/components/operator-context'
import { SessionBootstrap } from '@/components/session-key'
import { HashTarget } from '@/components/hash-target'
import { dashboardSession } from '@/lib/dashboard/operator'
import Loading from './loading'

// Every page here reads live state and the session cookie: never prerender at build time.
export const dynamic = 'force-dynamic'

/**
 * The signed-in shell: nothing of it is sent without a full session. A browser navigation
 * (cookie, no key) gets only a loading shell that asks again with the key. Each page checks again.
 */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const { state, principal } = await dashboardSession()
  if (state === 'key-missing' || !principal) return <main data-session-bootstrap className="mx-auto max-w-7xl px-4 py-6"><SessionBootstrap /><Loading /></main>
  return (
    <Providers>
      <PersonProvider person={{ username: principal.username, name: principal.name, role: principal.role, auth: principal.auth }}>
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-slate-900 focus:shadow">Skip to content</a>
      <Nav />
      <HashTarget />
      <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-6 focus:outline-none">{children}</main>
      </PersonProvider>
    </Providers>
  )
}
