'use client'

import { useRouter } from 'next/navigation'
import { buttonClass, inputClass } from '@/components/ui'

type Choice = { value: string; label: string }

/**
 * Search, filter and sort for a list, kept in the URL (so a view links and reloads). A plain GET
 * form that works without script; with script, the first choice (the default) and blank fields
 * are left out of the URL and the page changes in place.
 */
export function ListControls({ label, path, anchor = '', prefix = '', values, shows, sorts }: {
  label: string; path: string; anchor?: string; prefix?: string
  values: { q: string; show: string; sort: string }; shows: Choice[]; sorts: Choice[]
}) {
  const router = useRouter()
  const id = (n: string) => `${label.replace(/\W+/g, '-').toLowerCase()}-${n}`
  const select = (name: 'show' | 'sort', text: string, choices: Choice[]) => (
    <div>
      <label htmlFor={id(name)} className="block text-xs font-medium">{text}</label>
      <select id={id(name)} name={`${prefix}${name}`} defaultValue={values[name]} className={`mt-1 ${inputClass}`}>
        {choices.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
      </select>
    </div>
  )
  return (
    <form method="get" action={path} role="search" aria-label={label} className="mb-3 flex flex-wrap items-end gap-2" onSubmit={(e) => {
      e.preventDefault()
      const defaults: Record<string, string> = { [`${prefix}show`]: shows[0].value, [`${prefix}sort`]: sorts[0].value }
      const q = new URLSearchParams([...new FormData(e.currentTarget)].flatMap(([k, v]) => (typeof v === 'string' && v.trim() && defaults[k] !== v ? [[k, v.trim()]] : [])))
      router.push(`${path}${q.size ? `?${q}` : ''}${anchor}`)
    }}>
      <div>
        <label htmlFor={id('q')} className="block text-xs font-medium">Search</label>
        <input id={id('q')} name={`${prefix}q`} type="search" defaultValue={values.q} placeholder="name or text" className={`mt-1 ${inputClass}`} />
      </div>
      {select('show', 'Show', shows)}
      {select('sort', 'Sort by', sorts)}
      <button type="submit" className={buttonClass('primary')}>Apply</button>
    </form>
  )
}
