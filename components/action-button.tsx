'use client'

import { useState, useTransition } from 'react'
import type { ActionResult } from '@/lib/actions/safe-action'
import { ErrorNote } from './error-note'
import { AskFirst } from './ask-first'
import type { ButtonVariant } from './ui'
import { useCan } from './operator-context'
import type { Permission } from '@/lib/auth/roles'

/**
 * A button that runs one server action with a fixed input. Shows progress, asks first when the
 * change is drastic (inline: ./ask-first.tsx), and explains a failure (why + fix) right under itself.
 */
export function ActionButton<I>({ action, permission, input, label, name, pendingLabel, confirm, variant = 'secondary', onDone, doneLabel }: {
  action: (input: I) => Promise<ActionResult<unknown>>
  /** what the action needs (lib/auth/roles.ts): the button is not shown to a role without it (the action refuses it anyway) */
  permission: Permission
  input: I
  label: string
  /** the accessible name where the label alone repeats down a list ("Revoke" → "Revoke nightly") */
  name?: string
  pendingLabel?: string
  /** the question asked before anything is sent ("Revoke nightly? Agents using it are refused at once.") */
  confirm?: string
  variant?: ButtonVariant
  onDone?: () => void
  /** said after a success, where the page itself may not change visibly ("Saved") */
  doneLabel?: string
}) {
  const [pending, start] = useTransition()
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const [done, setDone] = useState(false)
  const allowed = useCan(permission)
  if (!allowed) return null
  const run = () => start(async () => {
    setDone(false)
    const r = await action(input)
    setFailure(r.ok ? null : r)
    setDone(r.ok)
    if (r.ok) onDone?.()
  })
  return (
    <span className="inline-flex flex-col gap-1">
      <AskFirst question={confirm} onConfirm={run} label={pending ? (pendingLabel ?? `${label}…`) : label} confirmLabel={label} name={name} variant={variant} disabled={pending} />
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
      {doneLabel && done && !pending && <span role="status" className="text-xs text-emerald-700 dark:text-emerald-400">{doneLabel}</span>}
    </span>
  )
}
