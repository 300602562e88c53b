'use client'

import { useState } from 'react'
import { ErrorNote } from '@/components/error-note'

const FORMATS = ['json', 'csv'] as const

/**
 * The export downloads. Fetched (so the session key comes along: a plain link is a browser
 * navigation, which cannot carry it) and saved from a blob under the server's file name.
 */
export function ExportLinks({ query }: { query: string }) {
  const [failure, setFailure] = useState<{ error: string; fix?: string } | null>(null)
  const download = async (format: (typeof FORMATS)[number]) => {
    const q = new URLSearchParams(query)
    q.set('format', format)
    try {
      const res = await fetch(`/activity/export?${q}`, { cache: 'no-store' })
      if (!res.ok) return setFailure(await res.json().catch(() => ({ error: `The export failed (HTTP ${res.status}).` })))
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `activity.${format}`
      const url = URL.createObjectURL(await res.blob())
      const a = Object.assign(document.createElement('a'), { href: url, download: name })
      a.click()
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
      setFailure(null)
    } catch {
      setFailure({ error: 'The export could not be fetched.', fix: 'Check that toolgate is running, then try again.' })
    }
  }
  return (
    <>
      {FORMATS.map((f) => (
        <button key={f} type="button" className="text-sky-700 underline dark:text-sky-300" onClick={() => void download(f)}>{f.toUpperCase()}</button>
      ))}
      {failure && <span className="basis-full"><ErrorNote error={failure.error} fix={failure.fix} /></span>}
    </>
  )
}
