'use client'

import Link from 'next/link'
import { useEffect, useRef, type KeyboardEvent } from 'react'
import type { ActivityItem } from '@/lib/activity/present'
import { showInvisible } from '@/lib/approvals/findings'
import { CopyButton } from '@/components/copy-button'
import { JsonView } from '@/components/json-view'
import { Button } from '@/components/ui'

const FOCUSABLE = 'a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])'

/**
 * One record in full, as the JSON export has it (data included; a call's arguments are only
 * their hash there), invisible characters spelled out so nothing recorded hides. A modal side
 * panel: focus moves in and stays (Tab wraps), Escape or Close gives it back to the record.
 */
export function RecordDrawer({ item, onClose }: { item: ActivityItem; onClose: () => void }) {
  const panel = useRef<HTMLDivElement>(null)
  useEffect(() => { panel.current?.querySelector<HTMLElement>('h2')?.focus() }, [item.id])
  const json = JSON.stringify(item, null, 2)
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation()
      onClose()
    }
    if (e.key !== 'Tab' || !panel.current) return
    const all = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)]
    const [first, last] = [all[0], all[all.length - 1]]
    if (e.shiftKey && (document.activeElement === first || document.activeElement === panel.current.querySelector('h2'))) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault()
      first.focus()
    }
  }
  return (
    <div className="fixed inset-0 z-40 flex justify-end bg-slate-900/30" onClick={(e) => { if (e.target === e.currentTarget) onClose() }}>
      <div ref={panel} role="dialog" aria-modal="true" aria-labelledby="record-drawer-title" onKeyDown={onKeyDown}
        className="flex h-full w-full max-w-xl flex-col gap-3 overflow-y-auto border-l border-slate-200 bg-white p-4 shadow-xl dark:border-slate-800 dark:bg-slate-900">
        <div className="flex items-start justify-between gap-2">
          <h2 id="record-drawer-title" tabIndex={-1} className="text-sm font-semibold outline-none">Record {item.id}: {item.type}</h2>
          <Button className="px-2 py-0.5 text-xs" onClick={onClose}>Close</Button>
        </div>
        <p className="flex flex-wrap items-center gap-2 text-xs">
          <span>Request <Link href={`/activity/${item.request_id}`} className="font-mono text-sky-700 underline dark:text-sky-300">{item.request_id}</Link></span>
          <CopyButton text={item.request_id} name="Copy the request id" />
        </p>
        {/* shown with its invisible characters spelled out; copied exactly as recorded */}
        <JsonView text={showInvisible(json)} copy={json} raw={json} label={`Record ${item.id}`} />
      </div>
    </div>
  )
}
