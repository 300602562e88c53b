'use client'

import { useRef, useState } from 'react'
import type { ToolReview } from '@/lib/approvals/review'
import { ErrorNote } from '@/components/error-note'
import { ApprovePanel } from './approve-panel'

type Loaded = { review: ToolReview } | { error: string }

/**
 * A tool's review behind its summary, loaded when opened: a list of 150 pending tools costs
 * nothing until the operator opens one (the review's overlap scoring is the costly part).
 */
export function LazyReview({ id, summary }: { id: string; summary: string }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null)
  const asked = useRef(false)
  const load = async () => {
    if (asked.current) return
    asked.current = true
    try {
      const res = await fetch(`/api/dashboard/review?id=${encodeURIComponent(id)}`, { cache: 'no-store' })
      const body = await res.json() as { review?: ToolReview; error?: string }
      asked.current = Boolean(body.review) // a failed load is tried again when the panel reopens
      setLoaded(body.review ? { review: body.review } : { error: body.error ?? `the review answered ${res.status}` })
    } catch (e) {
      asked.current = false
      setLoaded({ error: `the review could not be loaded: ${e instanceof Error ? e.message : String(e)}` })
    }
  }
  return (
    <details className="mt-2" onToggle={(e) => { if (e.currentTarget.open) void load() }}>
      <summary className="cursor-pointer text-sm text-sky-700 dark:text-sky-300">{summary}</summary>
      <div className="mt-2" aria-live="polite">
        {loaded === null ? <p className="text-xs text-slate-600 dark:text-slate-300">Loading the review (scoring it against every served tool)…</p>
          : 'error' in loaded ? <ErrorNote error={loaded.error} fix="Close and open the review again; if it keeps failing, reload the page." />
            : <ApprovePanel review={loaded.review} />}
      </div>
    </details>
  )
}
