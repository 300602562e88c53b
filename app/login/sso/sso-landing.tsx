'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useState } from 'react'
import { ErrorNote } from '@/components/error-note'
import { storeSessionKey } from '@/components/session-key'
import { sameSitePath } from '@/lib/schemas/return-path'

/**
 * The session key arrives in the fragment (#key=…&next=…), which no server ever receives; it is
 * kept like the sign-in form keeps it and taken out of the address bar and history at once.
 */
export function SsoLanding() {
  const router = useRouter()
  const [missing, setMissing] = useState(false)
  useEffect(() => {
    const p = new URLSearchParams(window.location.hash.slice(1))
    window.history.replaceState(null, '', window.location.pathname)
    const key = p.get('key')
    if (!key || !/^tg_sk_[A-Za-z0-9_-]{32}$/.test(key)) return setMissing(true)
    storeSessionKey(key)
    router.replace(sameSitePath(p.get('next')) ?? '/')
  }, [router])
  if (missing) return <ErrorNote error="This page holds no sign-in to finish." fix="Sign in again from the sign-in page." />
  return <p className="text-sm text-slate-600 dark:text-slate-400" role="status">Signing you in…</p>
}
