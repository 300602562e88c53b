'use client'
import { useRouter } from 'next/navigation'
import { useEffect } from 'react'

/**
 * While a managed server is not ready, the page re-renders now and then, so what a login, a
 * restart or the runtime's own reconnect changed shows without a reload. Rendered only then:
 * once the server is ready, the page stops asking.
 */
export function FollowConnection({ everyMs = 1500 }: { everyMs?: number }) {
  const router = useRouter()
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh()
    }, everyMs)
    return () => clearInterval(timer)
  }, [router, everyMs])
  return null
}
