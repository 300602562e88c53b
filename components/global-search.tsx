'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import { useEffect, useId, useRef, useState } from 'react'
import type { SearchHit } from '@/lib/dashboard/search'

const keyOf = (h: SearchHit) => `${h.kind}:${h.label}`
const optionId = (list: string, i: number) => `${list}-${i}`

/**
 * Search from the header: tool ids, servers, agent tokens and request ids, each opening its
 * page. A combobox (WAI-ARIA APG, list autocomplete): focus stays in the field while ArrowDown /
 * ArrowUp move the active result (aria-activedescendant), Enter opens it, Escape closes the list
 * and, once closed, clears the field. `/` anywhere outside a text field focuses it.
 */
export function GlobalSearch() {
  const [q, setQ] = useState('')
  const [open, setOpen] = useState(false)
  // the active result by key, not index: results that arrive later keep it, or drop it when it is gone
  const [active, setActive] = useState<string | null>(null)
  const input = useRef<HTMLInputElement>(null)
  const listId = useId()
  const router = useRouter()
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
  const expanded = open && q.trim() !== ''
  const listed = expanded && shown.length > 0
  const at = active === null ? -1 : shown.findIndex((h) => keyOf(h) === active)
  useEffect(() => {
    if (listed && at >= 0) document.getElementById(optionId(listId, at))?.scrollIntoView({ block: 'nearest' })
  }, [listed, at, listId])
  const go = (h: SearchHit) => { setQ(''); setOpen(false); setActive(null); router.push(h.href) }
  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault() // not the caret's move to either end
      if (!expanded) { setOpen(true); return }
      if (!shown.length) return
      const step = e.key === 'ArrowDown' ? 1 : -1
      // wraps round; from no active result, ArrowDown takes the first and ArrowUp the last
      const next = at < 0 ? (step === 1 ? 0 : shown.length - 1) : (at + step + shown.length) % shown.length
      setActive(keyOf(shown[next]))
    } else if (e.key === 'Enter' && listed && at >= 0) {
      e.preventDefault()
      go(shown[at])
    } else if (e.key === 'Escape') {
      e.preventDefault() // a search field's own Escape would clear it while the list is open
      if (expanded) { setOpen(false); setActive(null) } else setQ('')
    }
  }
  return (
    <div className="relative" role="search">
      <label htmlFor="global-search" className="sr-only">Search tools, servers, tokens and request ids</label>
      <input id="global-search" ref={input} type="search" value={q} placeholder="Search ( / )" autoComplete="off" spellCheck={false}
        role="combobox" aria-autocomplete="list" aria-expanded={listed} aria-controls={listId} aria-activedescendant={listed && at >= 0 ? optionId(listId, at) : undefined}
        onChange={(e) => { setQ(e.target.value); setOpen(true); setActive(null) }} onKeyDown={onKeyDown} onBlur={() => setOpen(false)} onFocus={() => setOpen(true)}
        className="w-44 rounded border border-slate-300 bg-white px-2 py-1 text-sm sm:w-56 dark:border-slate-700 dark:bg-slate-950" />
      <div className={expanded ? 'absolute right-0 z-40 mt-1 max-h-96 w-80 overflow-auto rounded border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900' : 'hidden'}>
        {expanded && !listed && <p role="status" className="px-3 py-2 text-slate-600 dark:text-slate-300">{hits.isFetching ? 'Searching…' : 'Nothing matches.'}</p>}
        <ul id={listId} role="listbox" aria-label="Search results" hidden={!listed}>
          {listed && shown.map((h, i) => (
            // the field keeps focus (mousedown would blur it and close the list before the click)
            <li key={keyOf(h)} id={optionId(listId, i)} role="option" aria-selected={i === at} onMouseDown={(e) => e.preventDefault()} onClick={() => go(h)}
              className={`flex cursor-pointer items-baseline gap-2 px-3 py-1.5 hover:bg-slate-100 dark:hover:bg-slate-800 ${i === at ? 'bg-slate-100 outline outline-2 -outline-offset-2 outline-blue-600 dark:bg-slate-800' : ''}`}>
              <span className="w-14 shrink-0 text-xs text-slate-600 dark:text-slate-300">{h.kind}</span>
              <span className="font-mono text-xs [overflow-wrap:anywhere]">{h.label}</span>
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
