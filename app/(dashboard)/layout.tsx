import { Nav } from '../../components/nav'
import { Providers } from '../../components/providers'

// Every page here reads live state and the session cookie: never prerender at build time.
export const dynamic = 'force-dynamic'

/** The signed-in shell. Each page still checks the session itself: a layout is not a guard. */
export default function DashboardLayout({ children }: { children: React.ReactNode }) {
  return (
    <Providers>
      <Nav />
      <main className="mx-auto max-w-7xl px-4 py-6">{children}</main>
    </Providers>
  )
}
