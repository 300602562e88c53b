'use client'

import { usePathname } from 'next/navigation'
import { useEffect } from 'react'

const WAIT_MS = 5_000

/**
 * A link to a place in a page (/tokens#profile-ops, /approvals#call-…) lands on it. The browser
 * looks for the fragment once, before the page's content has arrived (a dashboard page is
 * fetched with the session key after a data-free shell), so this looks again until it is there:
 * scrolled to, marked `data-targeted` for the page's highlight, and focused when it takes focus.
 */
export function HashTarget() {
  const path = usePathname()
  useEffect(() => {
    const id = decodeURIComponent(location.hash.slice(1))
    if (!id) return
    const until = Date.now() + WAIT_MS
    let timer: ReturnType<typeof setTimeout>
    const look = () => {
      const el = document.getElementById(id)
      if (!el) { if (Date.now() < until) timer = setTimeout(look, 100); return }
      el.scrollIntoView({ block: 'start' })
      el.setAttribute('data-targeted', 'true')
      if (el.tabIndex >= 0 || el.hasAttribute('tabindex')) el.focus({ preventScroll: true })
    }
    look()
    return () => clearTimeout(timer)
  }, [path])
  return null
}
