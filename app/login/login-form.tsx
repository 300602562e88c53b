'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useState, useTransition } from 'react'
import { signIn, signInPassword } from '@/lib/actions/sign-in'
import type { ActionResult } from '@/lib/actions/safe-action'
import { ErrorNote } from '@/components/error-note'
import { storeSessionKey } from '@/components/session-key'

const input = 'mt-1 w-full rounded border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900'
const primary = 'w-full rounded bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300'
const secondary = 'w-full rounded border border-slate-300 px-4 py-2 text-sm font-medium hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800'

type Attempt = () => Promise<ActionResult<{ key: string; next: string }>>

/** One sign-in form's progress and failure; a success keeps the session key and goes on. */
function useSignIn() {
  const router = useRouter()
  const [pending, start] = useTransition()
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const attempt = (run: Attempt) => start(async () => {
    const r = await run()
    if (!r.ok) return setFailure(r)
    storeSessionKey(r.data.key)
    router.replace(r.data.next)
  })
  return { pending, failure, attempt }
}

/** The password form, unless local accounts are off (settings.local_accounts); the break-glass key's form always. */
export function LoginForm({ next, passwords }: { next: string; passwords: boolean }) {
  const router = useRouter()
  const account = useSignIn()
  const glass = useSignIn()
  // This page is reached by browser navigations (a reload, a redirect, a link), which carry no
  // session key; a fetch does. An operator who is in fact signed in is sent straight on.
  useEffect(() => {
    fetch('/api/dashboard/session', { cache: 'no-store' }).then((r) => r.status === 204 && router.replace(next), () => undefined)
  }, [next, router])
  return (
    <>
      {passwords && <form className="mt-6 space-y-4" aria-label="Sign in with your account" onSubmit={(e) => {
        e.preventDefault()
        const f = new FormData(e.currentTarget)
        account.attempt(() => signInPassword({ login: String(f.get('login') ?? ''), password: String(f.get('password') ?? ''), next }))
      }}>
        <div>
          <label htmlFor="login" className="block text-sm font-medium">Username or e-mail</label>
          <input id="login" name="login" type="text" autoComplete="username" required autoFocus className={input} />
        </div>
        <div>
          <label htmlFor="password" className="block text-sm font-medium">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required className={input} />
        </div>
        {account.failure && <ErrorNote error={account.failure.error} fix={account.failure.fix} />}
        <button type="submit" disabled={account.pending} className={primary}>{account.pending ? 'Signing in…' : 'Sign in'}</button>
      </form>}
      <form className="mt-8 space-y-3 border-t border-slate-200 pt-6 dark:border-slate-800" aria-label="Break-glass sign-in" onSubmit={(e) => {
        e.preventDefault()
        const key = String(new FormData(e.currentTarget).get('key') ?? '')
        glass.attempt(() => signIn({ key, next }))
      }}>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No account yet, or locked out? The break-glass key (<code>TOOLGATE_API_KEY</code>, or the key toolgate printed once at first start) signs in as the bootstrap admin; every use is on the record.
        </p>
        <div>
          <label htmlFor="key" className="block text-sm font-medium">Break-glass key</label>
          <input id="key" name="key" type="password" autoComplete="off" required className={`${input} font-mono`} />
        </div>
        {glass.failure && <ErrorNote error={glass.failure.error} fix={glass.failure.fix} />}
        <button type="submit" disabled={glass.pending} className={secondary}>{glass.pending ? 'Checking the key…' : 'Use the break-glass key'}</button>
      </form>
    </>
  )
}
