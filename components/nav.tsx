'use client'

import Link from 'next/link'
import { usePathname, useRouter } from 'next/navigation'
import { useTransition } from 'react'
import { signOut } from '@/lib/actions/sign-in'
import { GlobalSearch } from '@/components/global-search'
import { clearSessionKey } from '@/components/session-key'
import { HeldBadge } from '@/components/held-badge'

const links = [
  { href: '/', label: 'Overview' },
  { href: '/preflight', label: 'Preflight' },
  { href: '/approvals', label: 'Approvals' },
  { href: '/activity', label: 'Activity' },
  { href: '/servers', label: 'Servers' },
  { href: '/tokens', label: 'Tokens & profiles' },
  { href: '/surface', label: 'Surface' },
  { href: '/settings', label: 'Settings' },
]

const isActive = (path: string, href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`))

export function Nav() {
  const path = usePathname()
  const router = useRouter()
  const [pending, start] = useTransition()
  return (
    <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <nav aria-label="Main" className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-1 gap-y-2 px-4 py-2">
        <Link href="/" className="mr-4 font-semibold tracking-tight">toolgate</Link>
        {links.map((l) => (
          <Link key={l.href} href={l.href} aria-current={isActive(path, l.href) ? 'page' : undefined}
            className="rounded px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100 aria-[current=page]:bg-slate-900 aria-[current=page]:text-white dark:text-slate-300 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-slate-100 dark:aria-[current=page]:text-slate-900">
            {l.label}{l.href === '/approvals' && <HeldBadge />}
          </Link>
        ))}
        <div className="ml-auto"><GlobalSearch /></div>
        <button type="button" disabled={pending} onClick={() => start(async () => { await signOut({}); clearSessionKey(); router.replace('/login') })}
          className="rounded px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100 disabled:opacity-50 dark:text-slate-300 dark:hover:bg-slate-800">
          {pending ? 'Signing out…' : 'Sign out'}
        </button>
      </nav>
    </header>
  )
}
