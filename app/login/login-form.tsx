'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useState, useTransition } from 'react'
import { signIn, signInPassword } from '@/lib/actions/sign-in'
import type { ActionResult } from '@/lib/actions/safe-action'
import { ErrorNote } from '@/components/error-note'
import { clearSessionKey, hasSessionKey, storeSessionKey } from '@/components/session-key'

const input = 'mt-1 w-full rounded border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900'
const primary = 'w-full rounded bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300'
const secondary = 'w-full rounded border border-slate-300 px-4 py-2 text-sm font-medium hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800'

type Attempt = () => Promise<ActionResult<{ key: string; next: string }>>
type Form = 'account' | 'glass'

/**
 * The sign-in forms' progress and their one failure: each attempt's failure replaces the last,
 * whichever form it came from, so an old error never stays beside a new one. A success keeps
 * the session key and goes on.
 */
function useSignIn() {
  const router = useRouter()
  const [pending, start] = useTransition()
  const [trying, setTrying] = useState<Form | null>(null)
  const [failure, setFailure] = useState<{ form: Form; error: string; fix: string } | null>(null)
  const attempt = (form: Form, run: Attempt) => {
    setTrying(form)
    setFailure(null)
    start(async () => {
      const r = await run()
      if (!r.ok) return setFailure({ form, error: r.error, fix: r.fix })
      storeSessionKey(r.data.key)
      router.replace(r.data.next)
    })
  }
  const failed = (form: Form) => (failure?.form === form ? failure : null)
  // both forms wait while either is tried; the one tried says so
  const busy = (form: Form) => pending && trying === form
  return { pending, busy, failed, attempt }
}

/** The password form, unless local accounts are off (settings.local_accounts); the break-glass key's form always. */
export function LoginForm({ next, passwords }: { next: string; passwords: boolean }) {
  const router = useRouter()
  const { pending, busy, failed, attempt } = useSignIn()
  const account = failed('account')
  const glass = failed('glass')
  // This page is reached by browser navigations (a reload, a redirect, a link), which carry no
  // session key; a fetch does. An operator who is in fact signed in is sent straight on. Without
  // a key there is no session to find (the probe would only log a 401); a key the server no
  // longer knows is dropped, so it is asked about once.
  useEffect(() => {
    if (!hasSessionKey()) return
    fetch('/api/dashboard/session', { cache: 'no-store' }).then((r) => {
      if (r.status === 204) router.replace(next)
      else if (r.status === 401) clearSessionKey()
    }, () => undefined)
  }, [next, router])
  return (
    <>
      {passwords && <form className="mt-6 space-y-4" aria-label="Sign in with your account" onSubmit={(e) => {
        e.preventDefault()
        const f = new FormData(e.currentTarget)
        attempt('account', () => signInPassword({ login: String(f.get('login') ?? ''), password: String(f.get('password') ?? ''), next }))
      }}>
        <div>
          <label htmlFor="login" className="block text-sm font-medium">Username or e-mail</label>
          <input id="login" name="login" type="text" autoComplete="username" required autoFocus className={input} />
        </div>
        <div>
          <label htmlFor="password" className="block text-sm font-medium">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required className={input} />
        </div>
        {account && <ErrorNote error={account.error} fix={account.fix} />}
        <button type="submit" disabled={pending} className={primary}>{busy('account') ? 'Signing in…' : 'Sign in'}</button>
      </form>}
      <form className="mt-8 space-y-3 border-t border-slate-200 pt-6 dark:border-slate-800" aria-label="Break-glass sign-in" onSubmit={(e) => {
        e.preventDefault()
        const key = String(new FormData(e.currentTarget).get('key') ?? '')
        attempt('glass', () => signIn({ key, next }))
      }}>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No account yet, or locked out? The break-glass key (<code>TOOLGATE_API_KEY</code>, or the key toolgate printed once at first start) signs in as the bootstrap admin; every use is on the record.
        </p>
        <div>
          <label htmlFor="key" className="block text-sm font-medium">Break-glass key</label>
          <input id="key" name="key" type="password" autoComplete="off" required className={`${input} font-mono`} />
        </div>
        {glass && <ErrorNote error={glass.error} fix={glass.fix} />}
        <button type="submit" disabled={pending} className={secondary}>{busy('glass') ? 'Checking the key…' : 'Use the break-glass key'}</button>
      </form>
    </>
  )
}
