'use client'

import { useId, useState } from 'react'
import { inputClass } from '@/components/ui'

/** How many matching servers are offered at once: a search narrows the rest (201 checkboxes are a wall). */
const SHOWN = 20

/**
 * Pick servers: the chosen ones as removable chips, and a search over every server with the
 * first matches as checkboxes. With `allowAll`, a "*" entry stands for every server (now and later).
 */
export function ServerPicker({ legend, servers, value, onChange, allowAll = false }: {
  legend: string; servers: string[]; value: string[]; onChange: (v: string[]) => void; allowAll?: boolean
}) {
  const [q, setQ] = useState('')
  const searchId = useId()
  const all = value.includes('*')
  const chosen = value.filter((v) => v !== '*')
  // names kept in the value that are no longer configured are still shown, so nothing is dropped silently
  const names = [...new Set([...servers, ...chosen])]
  const found = names.filter((s) => s.toLowerCase().includes(q.trim().toLowerCase()))
  const toggle = (name: string, on: boolean) => onChange(on ? [...value, name] : value.filter((v) => v !== name))
  return (
    <fieldset>
      <legend className="text-sm font-medium">{legend}</legend>
      {allowAll && (
        <label className="mt-1 inline-flex items-center gap-1.5 text-sm font-medium">
          <input type="checkbox" checked={all} onChange={(e) => onChange(e.target.checked ? ['*'] : [])} /> All servers (*)
        </label>
      )}
      {!all && (
        <>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-300" aria-live="polite">{chosen.length} of {servers.length} chosen</p>
          {chosen.length > 0 && (
            <ul className="mt-1 flex flex-wrap gap-1" aria-label={`Chosen: ${legend}`}>
              {chosen.map((s) => (
                <li key={s}><button type="button" onClick={() => toggle(s, false)} aria-label={`Remove ${s}`}
                  className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs hover:bg-red-100 dark:bg-slate-800 dark:hover:bg-red-950">{s} ×</button></li>
              ))}
            </ul>
          )}
          {names.length > SHOWN && (
            <div className="mt-2">
              <label htmlFor={searchId} className="block text-xs font-medium">Find a server</label>
              <input id={searchId} type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder={`${names.length} servers`} className={`mt-1 ${inputClass}`} />
            </div>
          )}
          <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
            {found.slice(0, SHOWN).map((s) => (
              <label key={s} className="inline-flex items-center gap-1.5 font-mono text-sm">
                <input type="checkbox" checked={value.includes(s)} onChange={(e) => toggle(s, e.target.checked)} /> {s}
              </label>
            ))}
          </div>
          {found.length > SHOWN && <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">{found.length - SHOWN} more match: type more of the name.</p>}
          {found.length === 0 && <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">No server matches “{q}”.</p>}
        </>
      )}
      {allowAll && !all && value.length === 0 && <p className="mt-1 text-xs text-amber-700 dark:text-amber-300">No servers selected: this token will be denied everything.</p>}
    </fieldset>
  )
}
