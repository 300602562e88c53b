import type { Metadata } from 'next'
import { redirect } from 'next/navigation'
import { isSignedIn } from '@/lib/dashboard/operator'
import { loadLogin } from '@/lib/dashboard/pages/login'
import { isSsoRefusal, oidcConfig, OIDC_START_PATH, SSO_REFUSALS } from '@/lib/auth/oidc'
import { ErrorNote } from '@/components/error-note'
import { LoginForm } from './login-form'
import { sameSitePath } from '@/lib/schemas/return-path'

export const metadata: Metadata = { title: 'Sign in' }
export const dynamic = 'force-dynamic'

const sso = 'block w-full rounded bg-slate-900 px-4 py-2 text-center text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300'

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[]; sso_error?: string | string[] }> }) {
  const { next, sso_error: ssoError } = await searchParams
  const target = sameSitePath(next) ?? '/'
  if (await isSignedIn()) redirect(target)
  const oidc = oidcConfig()
  const refusal = isSsoRefusal(ssoError) ? SSO_REFUSALS[ssoError] : null
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4">
      <h1 className="text-2xl font-semibold">Sign in to toolgate</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        The dashboard is for operators: sign in as yourself. Agent tokens cannot sign in.
      </p>
      {(oidc || refusal) && (
        <div className="mt-6 space-y-3">
          {refusal && <ErrorNote error={refusal.error} fix={refusal.fix} />}
          {/* a plain link: the start is a browser navigation to the provider and back */}
          {oidc && <a className={sso} href={`${OIDC_START_PATH}?${new URLSearchParams({ next: target })}`}>Sign in with {oidc.label}</a>}
        </div>
      )}
      <LoginForm next={target} passwords={loadLogin().passwords} />
    </main>
  )
}
