'use client'

import Link from 'next/link'
import { usePathname, useRouter } from 'next/navigation'
import { useTransition } from 'react'
import { signOut } from '@/lib/actions/sign-in'
import { GlobalSearch } from '@/components/global-search'
import { clearSessionKey } from '@/components/session-key'
import { usePerson } from '@/components/operator-context'
import { dashboardPages, isAt } from '@/lib/dashboard/routes'
import { HeldBadge } from '@/components/held-badge'

export function Nav() {
  const path = usePathname()
  const router = useRouter()
  const [pending, start] = useTransition()
  const me = usePerson()
  return (
    <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <nav aria-label="Main" className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-1 gap-y-2 px-4 py-2">
        <Link href="/" className="mr-4 font-semibold tracking-tight">toolgate</Link>
        {dashboardPages.map((l) => (
          <Link key={l.href} href={l.href} aria-current={isAt(path, l.href) ? 'page' : undefined}
            className="rounded px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100 aria-[current=page]:bg-slate-900 aria-[current=page]:text-white dark:text-slate-300 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-slate-100 dark:aria-[current=page]:text-slate-900">
            {l.label}{l.href === '/approvals' && <HeldBadge />}
          </Link>
        ))}
        <div className="ml-auto"><GlobalSearch /></div>
        {me && <span className="px-2 text-sm text-slate-600 dark:text-slate-300" data-person={me.username}>{me.auth === 'break-glass' ? 'break-glass' : me.name} · {me.role}</span>}
        <button type="button" disabled={pending} onClick={() => start(async () => { await signOut({}); clearSessionKey(); router.replace('/login') })}
          className="rounded px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100 disabled:opacity-50 dark:text-slate-300 dark:hover:bg-slate-800">
          {pending ? 'Signing out…' : 'Sign out'}
        </button>
      </nav>
    </header>
  )
}
