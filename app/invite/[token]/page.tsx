import type { Metadata } from 'next'
import { InvitationForm } from './invitation-form'

export const metadata: Metadata = { title: 'Accept an invitation' }
export const dynamic = 'force-dynamic'

/** `/invite/<token>`: an admin's one-time link. The page shows nothing of the account: the action checks the link when a password is chosen. */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4">
      <h1 className="text-2xl font-semibold">Join toolgate</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        An admin invited you. Choose a password for your account; this link works once and expires.
      </p>
      <InvitationForm token={decodeURIComponent(token)} />
    </main>
  )
}
