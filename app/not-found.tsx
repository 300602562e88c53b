import type { Metadata } from 'next'
import Link from 'next/link'
import { buttonClass } from '@/components/ui'

export const metadata: Metadata = { title: 'Not found' }

/** Any address toolgate does not serve: say so in toolgate's own words, and offer the way back. */
export default function NotFound() {
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-16">
      <p className="font-semibold tracking-tight">toolgate</p>
      <h1 className="mt-4 text-2xl font-semibold tracking-tight">No page at this address</h1>
      <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
        The link may be out of date, or the address mistyped. A tool, server or token you expected may have been renamed or removed.
      </p>
      <div className="mt-6 flex flex-wrap gap-2">
        <Link className={buttonClass('primary')} href="/">Overview</Link>
        <Link className={buttonClass()} href="/preflight">Preflight</Link>
        <Link className={buttonClass()} href="/activity">Activity</Link>
      </div>
    </main>
  )
}
