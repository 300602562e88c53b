'use client'

import { useRouter } from 'next/navigation'
import { useState, useTransition } from 'react'
import { acceptInvitationAction } from '@/lib/actions/sign-in'
import { ErrorNote } from '@/components/error-note'
import { storeSessionKey } from '@/components/session-key'

export function InvitationForm({ token }: { token: string }) {
  const router = useRouter()
  const [pending, start] = useTransition()
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  return (
    <form className="mt-6 space-y-4" onSubmit={(e) => {
      e.preventDefault()
      const password = String(new FormData(e.currentTarget).get('password') ?? '')
      start(async () => {
        const r = await acceptInvitationAction({ token, password })
        if (!r.ok) return setFailure(r)
        storeSessionKey(r.data.key)
        router.replace(r.data.next)
      })
    }}>
      <div>
        <label htmlFor="password" className="block text-sm font-medium">New password</label>
        <input id="password" name="password" type="password" autoComplete="new-password" required minLength={12} autoFocus
          className="mt-1 w-full rounded border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900" />
      </div>
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
      <button type="submit" disabled={pending} className="w-full rounded bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900">
        {pending ? 'Setting up…' : 'Set password and sign in'}
      </button>
    </form>
  )
}
