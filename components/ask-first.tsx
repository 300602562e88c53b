'use client'

import { useEffect, useRef, useState, type ReactNode } from 'react'
import { Button, type ButtonVariant } from './ui'

/**
 * A button that, when there is a question (`question`), asks it first, inline in place of the
 * button, never with the browser's `confirm()` (which blocks the page, cannot be styled, and reads
 * differently in every browser): the question is announced, focus moves to the confirming button,
 * and Escape or Cancel puts focus back on the button. Without a question it acts at once.
 */
export function AskFirst({ question, onConfirm, label, confirmLabel = label, name, variant = 'secondary', confirmVariant = variant, disabled }: {
  question: string | undefined
  onConfirm: () => void
  label: ReactNode
  /** the confirming button's text (the button's own label unless given) */
  confirmLabel?: ReactNode
  /** the accessible name where the label alone repeats down a list */
  name?: string
  variant?: ButtonVariant
  confirmVariant?: ButtonVariant
  disabled?: boolean
}) {
  const [asking, setAsking] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const yes = useRef<HTMLButtonElement>(null)
  // focus goes back to the button once it is shown again and usable (it may be disabled while the action runs)
  const refocus = useRef(false)
  useEffect(() => {
    if (asking) yes.current?.focus()
    else if (refocus.current && !disabled) { refocus.current = false; button.current?.focus() }
  }, [asking, disabled])
  const back = (then?: () => void) => { refocus.current = true; setAsking(false); then?.() }
  if (asking && question) {
    return (
      <span role="alertdialog" aria-label={`Confirm: ${name ?? (typeof label === 'string' ? label : '')}`} className="inline-flex flex-wrap items-center gap-2 text-sm"
        onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); back() } }}>
        <span role="alert">{question}</span>
        <Button ref={yes} variant={confirmVariant} aria-label={name} disabled={disabled} onClick={() => back(onConfirm)}>{confirmLabel}</Button>
        <Button onClick={() => back()}>Cancel</Button>
      </span>
    )
  }
  return <Button ref={button} variant={variant} disabled={disabled} aria-label={name} onClick={() => (question ? setAsking(true) : onConfirm())}>{label}</Button>
}
