'use client'

import { useRouter } from 'next/navigation'
import { useEffect } from 'react'

/**
 * Reads the page again every `everyMs` while its tab is shown, so a page that lists what needs an
 * operator follows the state — a newly blocked agent appears, a fixed one goes — without a
 * reload. What the person has open in it (a review, a confirmation) stays open: a refresh keeps
 * client state.
 */
export function LiveRefresh({ everyMs }: { everyMs: number }) {
  const router = useRouter()
  useEffect(() => {
    const timer = setInterval(() => { if (document.visibilityState === 'visible') router.refresh() }, everyMs)
    return () => clearInterval(timer)
  }, [router, everyMs])
  return null
}
