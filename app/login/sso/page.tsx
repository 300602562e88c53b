import type { Metadata } from 'next'
import { SsoLanding } from './sso-landing'

export const metadata: Metadata = { title: 'Signing in' }

/** Where a single sign-on lands: the page keeps the session key from the address's fragment, then goes on. */
export default function SsoLandingPage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4">
      <SsoLanding />
    </main>
  )
}
