'use client'

import { useState } from 'react'
import { Button } from './ui'

/** Copy text to the clipboard; says so for a moment (announced to screen readers). `name` says what is copied, where the label alone repeats. */
export function CopyButton({ text, label = 'Copy', name }: { text: string; label?: string; name?: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null)
  return (
    <Button className="px-2 py-0.5 text-xs" aria-label={name} onClick={async () => {
      try {
        await navigator.clipboard.writeText(text)
        setDone('copied')
      } catch {
        setDone('failed') // e.g. a non-secure context: the text stays selectable on the page
      }
      setTimeout(() => setDone(null), 1500)
    }}>
      <span aria-live="polite">{done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed' : label}</span>
    </Button>
  )
}
