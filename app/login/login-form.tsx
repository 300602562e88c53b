'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useState, useTransition } from 'react'
import { signIn } from '@/lib/actions/sign-in'
import { ErrorNote } from '@/components/error-note'
import { storeSessionKey } from '@/components/session-key'

export function LoginForm({ next }: { next: string }) {
  const router = useRouter()
  const [pending, start] = useTransition()
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  // This page is reached by browser navigations (a reload, a redirect, a link), which carry no
  // session key; a fetch does. An operator who is in fact signed in is sent straight on.
  useEffect(() => {
    fetch('/api/dashboard/session', { cache: 'no-store' }).then((r) => r.status === 204 && router.replace(next), () => undefined)
  }, [next, router])
  return (
    <form className="mt-6 space-y-4" onSubmit={(e) => {
      e.preventDefault()
      const key = String(new FormData(e.currentTarget).get('key') ?? '')
      start(async () => {
        const r = await signIn({ key, next })
        if (!r.ok) return setFailure(r)
        storeSessionKey(r.data.key)
        router.replace(r.data.next)
      })
    }}>
      <div>
        <label htmlFor="key" className="block text-sm font-medium">Operator API key</label>
        <input id="key" name="key" type="password" autoComplete="current-password" required autoFocus
          className="mt-1 w-full rounded border border-slate-300 bg-white px-3 py-2 font-mono text-sm dark:border-slate-700 dark:bg-slate-900" />
      </div>
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
      <button type="submit" disabled={pending} className="w-full rounded bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300">
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
