'use client'

import { useEffect, useState, useTransition } from 'react'
import { signIn } from '@/lib/actions/sign-in'
import { ErrorNote } from '@/components/error-note'

export function LoginForm({ next }: { next: string }) {
  const [pending, start] = useTransition()
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  // Arriving from another site strips the SameSite=Strict cookie from that one navigation;
  // a same-site check still sees it, and a same-site navigation carries it (see the route).
  useEffect(() => {
    fetch('/api/dashboard/session', { cache: 'no-store' }).then((r) => r.status === 204 && window.location.replace(next), () => undefined)
  }, [next])
  return (
    <form className="mt-6 space-y-4" onSubmit={(e) => {
      e.preventDefault()
      const key = String(new FormData(e.currentTarget).get('key') ?? '')
      start(async () => {
        const r = await signIn({ key, next })
        if (r && !r.ok) setFailure(r)
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
