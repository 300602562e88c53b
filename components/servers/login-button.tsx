'use client'

import { useCan } from '@/components/operator-context'
import { useState, useTransition } from 'react'
import { startLoginAction } from '@/lib/actions/upstream'
import { ErrorNote } from '@/components/error-note'
import { Button } from '@/components/ui'

/**
 * Start the upstream's real OAuth login and send this browser to the authorization server;
 * its callback brings the operator back to this very page (same URL, same check). With
 * `recheck`, the page comes back told whom it logged in to (`logged_in=`), so a check can follow
 * the new connection and say the login landed.
 */
export function LoginButton({ server, requestId, label = 'Log in', ariaLabel, onAlreadyAuthorized, recheck = false }: {
  server: string; requestId?: string; label?: string; ariaLabel?: string; onAlreadyAuthorized?: () => void; recheck?: boolean
}) {
  const [pending, start] = useTransition()
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  if (!useCan('operate')) return null
  return (
    <span className="inline-flex flex-col gap-1">
      <Button variant="primary" disabled={pending} aria-label={ariaLabel} onClick={() => start(async () => {
        const back = new URL(window.location.href)
        if (recheck) back.searchParams.set('logged_in', server)
        const r = await startLoginAction({ server, returnTo: back.pathname + back.search, ...(requestId ? { requestId } : {}) })
        if (!r.ok) return setFailure(r)
        if ('url' in r.data) window.location.assign(r.data.url)
        else onAlreadyAuthorized?.()
      })}>{pending ? 'Starting login…' : label}</Button>
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
    </span>
  )
}
