'use client'

import { useState, useTransition } from 'react'
import { rotateTokenAction } from '@/lib/actions/access'
import { CopyButton } from '@/components/copy-button'
import { ErrorNote } from '@/components/error-note'
import { Button } from '@/components/ui'
import { ExpiryField, expiryMs } from './expiry-field'

/** Rotate a token after confirming, then show its new secret once (the old one stops working at once). Its expiry stays unless a new one is given. */
export function RotateToken({ name, expired }: { name: string; expired: boolean }) {
  const [asking, setAsking] = useState(false)
  const [secret, setSecret] = useState<string | null>(null)
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const [pending, start] = useTransition()
  const [expires, setExpires] = useState('')
  return (
    <span className="inline-flex flex-col gap-1">
      {!asking && <Button aria-label={`Rotate token ${name}`} onClick={() => { setAsking(true); setSecret(null) }}>Rotate</Button>}
      {asking && (
        <span role="alertdialog" aria-label={`Confirm rotating ${name}`} className="flex flex-wrap items-center gap-2 text-sm">
          Its current secret stops working at once.{expired && ' It has expired: give it a new expiry, or the new secret is refused too.'}
          <ExpiryField id={`rotate-expires-${name}`} value={expires} onChange={setExpires} empty="keep the current one" />
          <Button variant="danger" disabled={pending} onClick={() => start(async () => {
            const r = await rotateTokenAction({ name, ...(expires === '' ? {} : { expiresAt: expiryMs(expires) }) })
            setFailure(r.ok ? null : r)
            if (r.ok) setSecret(r.data.token)
            if (r.ok) { setAsking(false); setExpires('') }
          })}>{pending ? 'Rotating…' : 'Yes, rotate'}</Button>
          <Button onClick={() => setAsking(false)}>Cancel</Button>
        </span>
      )}
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
      {secret && (
        <span role="status" className="rounded border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-700 dark:bg-amber-950">
          New secret for {name} — copy it now, it is not shown again:
          <span className="mt-1 flex flex-wrap items-center gap-2"><code data-testid={`rotated-${name}`} className="break-all">{secret}</code><CopyButton text={secret} label="Copy token" /></span>
        </span>
      )}
    </span>
  )
}
