'use client'

import { useState, useTransition } from 'react'
import { showInvisible } from '@/lib/approvals/findings'
import { Allowed } from '@/components/operator-context'
import { ErrorNote } from '@/components/error-note'

/**
 * A held call's arguments on its activity records, read on demand (the log itself keeps only
 * their hash): for a role that reads call arguments, with invisible characters made visible,
 * as in every review.
 */
export function CallArguments({ callId }: { callId: string }) {
  const [args, setArgs] = useState<unknown>(undefined)
  const [failure, setFailure] = useState<string | null>(null)
  const [pending, start] = useTransition()
  const load = () => start(async () => {
    const res = await fetch(`/api/dashboard/calls/${encodeURIComponent(callId)}`, { cache: 'no-store' })
    const body = await res.json().catch(() => ({}))
    if (res.ok) { setArgs(body.arguments); setFailure(null) } else setFailure(body.error ?? `the arguments could not be read (HTTP ${res.status})`)
  })
  return (
    <Allowed permission="view_arguments">
      {args === undefined
        ? <button type="button" className="text-xs text-sky-700 underline dark:text-sky-300" disabled={pending} onClick={load} aria-label={`Show the arguments of call ${callId}`}>arguments</button>
        : <pre tabIndex={0} aria-label={`Arguments of call ${callId}`} className="basis-full max-h-48 overflow-auto rounded bg-slate-950 p-2 text-xs text-slate-100">{showInvisible(JSON.stringify(args, null, 2))}</pre>}
      {failure && <span className="basis-full"><ErrorNote error={failure} fix="Reload the page; if it persists, sign in again." /></span>}
    </Allowed>
  )
}
