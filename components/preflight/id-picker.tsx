'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { inputClass } from '@/components/ui'

/** Suggestions for what is being typed, from an index-backed route (the catalog may hold many thousands of ids). */
function useSuggestions(prefix: string): string[] {
  const q = useQuery({
    queryKey: ['tool-ids', prefix],
    queryFn: async () => {
      const res = await fetch(`/api/dashboard/tool-ids?q=${encodeURIComponent(prefix)}`, { cache: 'no-store' })
      return res.ok ? ((await res.json()).ids as string[]) : []
    },
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  })
  return q.data ?? []
}

/**
 * Tool ids as removable chips, with autocomplete over every known `server:tool` id (a native
 * datalist: keyboard and screen-reader friendly for free). Enter, comma or space adds; pasting
 * a list adds each id; Backspace in the empty field removes the last chip.
 */
export function IdPicker({ ids, onChange }: { ids: string[]; onChange: (ids: string[]) => void }) {
  const [draft, setDraft] = useState('')
  const known = useSuggestions(draft.trim())
  const listId = useId()
  const add = (text: string) => {
    const fresh = text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s && !ids.includes(s))
    if (fresh.length) onChange([...ids, ...new Set(fresh)])
    setDraft('')
  }
  return (
    <div>
      <label htmlFor={`${listId}-input`} className="block text-sm font-medium">Tool ids</label>
      <div className="mt-1 flex flex-wrap items-center gap-1.5 rounded border border-slate-300 bg-white p-1.5 dark:border-slate-700 dark:bg-slate-950">
        <ul aria-label="Selected tool ids" className="contents">
          {ids.map((id) => (
            <li key={id} className="inline-flex items-center gap-1 rounded bg-slate-100 py-0.5 pl-2 pr-1 font-mono text-xs dark:bg-slate-800">
              {id}
              <button type="button" aria-label={`Remove ${id}`} onClick={() => onChange(ids.filter((x) => x !== id))}
                className="rounded px-1 text-slate-600 dark:text-slate-300 hover:bg-slate-200 hover:text-slate-900 dark:hover:bg-slate-700 dark:hover:text-white">×</button>
            </li>
          ))}
        </ul>
        <input id={`${listId}-input`} list={listId} value={draft} placeholder={ids.length ? 'add another…' : 'server:tool'}
          autoComplete="off" spellCheck={false}
          onChange={(e) => {
            const v = e.target.value
            // picking a datalist suggestion replaces the text in one go: take that id at once
            if ((e.nativeEvent as InputEvent).inputType === 'insertReplacementText' && known.includes(v.trim())) add(v)
            else setDraft(v)
          }}
          onPaste={(e) => {
            const text = e.clipboardData.getData('text')
            if (/[\s,]/.test(text.trim())) { e.preventDefault(); add(text) }
          }}
          onKeyDown={(e) => {
            if ((e.key === 'Enter' || e.key === ',' || e.key === ' ') && draft.trim()) { e.preventDefault(); add(draft) }
            else if (e.key === 'Enter') e.preventDefault()
            else if (e.key === 'Backspace' && !draft && ids.length) onChange(ids.slice(0, -1))
          }}
          onBlur={() => draft.trim() && add(draft)}
          className={`min-w-40 flex-1 border-0 font-mono focus:ring-0 ${inputClass} border-none`} />
        <datalist id={listId}>
          {known.filter((k) => !ids.includes(k)).map((k) => <option key={k} value={k} />)}
        </datalist>
      </div>
      <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">Type or paste ids (<code>server:tool</code>); suggestions come from every tool toolgate knows.</p>
    </div>
  )
}
