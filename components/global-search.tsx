'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useEffect, useRef, useState } from 'react'
import type { SearchHit } from '@/lib/dashboard/search'

/**
 * Search from the header: tool ids, servers, agent tokens and request ids, each a link to its
 * page. `/` anywhere outside a text field focuses it; Escape clears it.
 */
export function GlobalSearch() {
  const [q, setQ] = useState('')
  const input = useRef<HTMLInputElement>(null)
  const hits = useQuery({
    queryKey: ['search', q.trim()],
    queryFn: async () => {
      const res = await fetch(`/api/dashboard/search?q=${encodeURIComponent(q.trim())}`, { cache: 'no-store' })
      return res.ok ? ((await res.json()).hits as SearchHit[]) : []
    },
    enabled: q.trim() !== '',
    placeholderData: keepPreviousData,
  })
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement
      if (e.key !== '/' || e.metaKey || e.ctrlKey || e.altKey || t.closest('input, textarea, select, [contenteditable="true"]')) return
      e.preventDefault()
      input.current?.focus()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  const shown = q.trim() ? hits.data ?? [] : []
  return (
    <div className="relative" role="search">
      <label htmlFor="global-search" className="sr-only">Search tools, servers, tokens and request ids</label>
      <input id="global-search" ref={input} type="search" value={q} placeholder="Search ( / )" autoComplete="off" spellCheck={false}
        onChange={(e) => setQ(e.target.value)} onKeyDown={(e) => { if (e.key === 'Escape') setQ('') }}
        className="w-44 rounded border border-slate-300 bg-white px-2 py-1 text-sm sm:w-56 dark:border-slate-700 dark:bg-slate-950" />
      {q.trim() && (
        <ul aria-label="Search results" className="absolute right-0 z-40 mt-1 max-h-96 w-80 overflow-auto rounded border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900">
          {shown.length === 0 && <li className="px-3 py-2 text-slate-600 dark:text-slate-300">{hits.isFetching ? 'Searching…' : 'Nothing matches.'}</li>}
          {shown.map((h) => (
            <li key={`${h.kind}:${h.label}`}>
              <Link href={h.href} onClick={() => setQ('')} className="flex items-baseline gap-2 px-3 py-1.5 hover:bg-slate-100 focus:bg-slate-100 dark:hover:bg-slate-800 dark:focus:bg-slate-800">
                <span className="w-14 shrink-0 text-xs text-slate-600 dark:text-slate-300">{h.kind}</span>
                <span className="font-mono text-xs [overflow-wrap:anywhere]">{h.label}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
