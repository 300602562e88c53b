/**
 * The dashboard's pages, one table: the nav lists them in this order (components/nav.tsx),
 * proxy.ts sends a browser without a session to sign in before any of them (or a page below
 * one) renders, and tests/unit/dashboard/routes.test.ts fails when a page folder under
 * app/(dashboard) is missing here. The proxy and a client component import it: it imports nothing.
 */
export const dashboardPages = [
  { href: '/', label: 'Overview' },
  { href: '/preflight', label: 'Preflight' },
  { href: '/approvals', label: 'Held calls' },
  { href: '/activity', label: 'Activity' },
  { href: '/servers', label: 'Servers' },
  { href: '/setup', label: 'Set up' },
  { href: '/connect', label: 'Clients' },
  { href: '/tokens', label: 'Tokens & profiles' },
  { href: '/surface', label: 'Surface' },
  { href: '/settings', label: 'Settings' },
  { href: '/operators', label: 'Operators' },
] as const

/** Whether `pathname` is the page `href` or below it (the overview is only itself). */
export const isAt = (pathname: string, href: string) => (href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`))

/** Whether `pathname` is a dashboard page or below one (/servers/notes is; /login and /api/… are not). */
export const isDashboardPath = (pathname: string) => dashboardPages.some((p) => isAt(pathname, p.href))
