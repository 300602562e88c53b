import type { Metadata } from 'next'
import { redirect } from 'next/navigation'
import { isSignedIn } from '@/lib/dashboard/operator'
import { LoginForm } from './login-form'
import { sameSitePath } from '@/lib/schemas/return-path'

export const metadata: Metadata = { title: 'Sign in' }
export const dynamic = 'force-dynamic'

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams
  const target = sameSitePath(next) ?? '/'
  if (await isSignedIn()) redirect(target)
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4">
      <h1 className="text-2xl font-semibold">Sign in to toolgate</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        The dashboard is for operators: sign in as yourself. Agent tokens cannot sign in.
      </p>
      <LoginForm next={target} />
    </main>
  )
}
