'use client'

import { useQuery } from '@tanstack/react-query'
import { usePathname } from 'next/navigation'
import { useEffect } from 'react'

const POLL_MS = 2000
const PREFIX = /^\(\d+ held\) /

/** Calls waiting for an operator, polled on every page (one indexed count). */
export function useHeldCount(): number {
  const q = useQuery({
    queryKey: ['held'],
    queryFn: async () => {
      const res = await fetch('/api/dashboard/held', { cache: 'no-store' })
      if (!res.ok) throw new Error(`held calls answered ${res.status}`)
      return (await res.json() as { pending: number }).pending
    },
    refetchInterval: POLL_MS,
  })
  return q.data ?? 0
}

/**
 * The Approvals link's badge, and the tab's title ("(2 held) Overview · toolgate"), so a held
 * call is seen from any page and from another tab. Next.js sets the title on every navigation:
 * it is set again after each one and each poll.
 */
export function HeldBadge() {
  const held = useHeldCount()
  const path = usePathname()
  useEffect(() => {
    const base = document.title.replace(PREFIX, '')
    document.title = held > 0 ? `(${held} held) ${base}` : base
  }, [held, path])
  if (held === 0) return null
  return <span data-testid="held-badge" aria-label={`${held} held call${held === 1 ? '' : 's'} waiting`} className="ml-1.5 rounded-full bg-amber-500 px-1.5 py-0.5 text-xs font-semibold text-slate-950">{held}</span>
}
