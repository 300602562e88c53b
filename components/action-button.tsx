'use client'

import { useEffect, useRef, useState, useTransition } from 'react'
import type { ActionResult } from '@/lib/actions/safe-action'
import { ErrorNote } from './error-note'
import { Button, type ButtonVariant } from './ui'
import { useCan } from './operator-context'
import type { Permission } from '@/lib/auth/roles'

/**
 * A button that runs one server action with a fixed input. Shows progress, asks first when the
 * change is drastic, and explains a failure (why + fix) right under itself.
 *
 * The question is asked inline, in place of the button, never with the browser's `confirm()`
 * (which blocks the page, cannot be styled, and reads differently in every browser): the question
 * is announced, focus moves to the confirming button, and Escape or Cancel puts focus back.
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
  const [asking, setAsking] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const yes = useRef<HTMLButtonElement>(null)
  // focus goes back to the button once it is shown again and usable (it is disabled while the action runs)
  const refocus = useRef(false)
  useEffect(() => {
    if (asking) yes.current?.focus()
    else if (refocus.current && !pending) { refocus.current = false; button.current?.focus() }
  }, [asking, pending])
  const allowed = useCan(permission)
  if (!allowed) return null
  const run = () => start(async () => {
    const r = await action(input)
    setFailure(r.ok ? null : r)
    setDone(r.ok)
    if (r.ok) onDone?.()
  })
  const back = (then?: () => void) => { refocus.current = true; setAsking(false); then?.() }
  return (
    <span className="inline-flex flex-col gap-1">
      {asking && confirm
        ? (
          <span role="alertdialog" aria-label={`Confirm: ${name ?? label}`} className="inline-flex flex-wrap items-center gap-2 text-sm"
            onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); back() } }}>
            <span role="alert">{confirm}</span>
            <Button ref={yes} variant={variant} aria-label={name} onClick={() => back(run)}>{label}</Button>
            <Button onClick={() => back()}>Cancel</Button>
          </span>
        )
        : <Button ref={button} variant={variant} disabled={pending} aria-label={name} onClick={() => {
          if (confirm) { setDone(false); setAsking(true) } else run()
        }}>{pending ? (pendingLabel ?? `${label}…`) : label}</Button>}
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
      {doneLabel && done && !pending && <span role="status" className="text-xs text-emerald-700 dark:text-emerald-400">{doneLabel}</span>}
    </span>
  )
}
