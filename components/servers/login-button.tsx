'use client'

import { useCan } from '@/components/operator-context'
import { useState, useTransition } from 'react'
import { startLoginAction } from '@/lib/actions/upstream'
import { ErrorNote } from '@/components/error-note'
import { Button } from '@/components/ui'

/**
 * Start the upstream's real OAuth login and send this browser to the authorization server;
 * its callback brings the operator back to this very page (same URL, same check).
 */
export function LoginButton({ server, requestId, label = 'Log in', ariaLabel, onAlreadyAuthorized }: {
  server: string; requestId?: string; label?: string; ariaLabel?: string; onAlreadyAuthorized?: () => void
}) {
  const [pending, start] = useTransition()
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  if (!useCan('operate')) return null
  return (
    <span className="inline-flex flex-col gap-1">
      <Button variant="primary" disabled={pending} aria-label={ariaLabel} onClick={() => start(async () => {
        const r = await startLoginAction({ server, returnTo: window.location.pathname + window.location.search, ...(requestId ? { requestId } : {}) })
        if (!r.ok) return setFailure(r)
        if ('url' in r.data) window.location.assign(r.data.url)
        else onAlreadyAuthorized?.()
      })}>{pending ? 'Starting login…' : label}</Button>
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
    </span>
  )
}
