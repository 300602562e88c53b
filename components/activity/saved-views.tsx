'use client'

import Link from 'next/link'
import { useEffect, useState } from 'react'
import { Button, inputClass } from '@/components/ui'
import { storedViewsSchema as storedViews, viewNameSchema as viewName, type SavedView as View } from '@/lib/schemas/saved-views'

// this browser's own bookmarks of filter sets: nothing is sent to toolgate, so nothing is stored there
const STORAGE = 'toolgate.activity.views'

/** What this browser keeps; anything unreadable (edited by hand, an older shape) counts as none. */
function readViews(): View[] {
  try {
    const parsed = storedViews.safeParse(JSON.parse(localStorage.getItem(STORAGE) ?? '[]'))
    return parsed.success ? parsed.data : []
  } catch {
    return []
  }
}

/** Named filter sets kept in this browser, listed as links; the current filters can be saved under a name. */
export function SavedViews({ query }: { query: string }) {
  const [views, setViews] = useState<View[]>([])
  const [error, setError] = useState<string | null>(null)
  useEffect(() => setViews(readViews()), [])
  const store = (next: View[]) => {
    localStorage.setItem(STORAGE, JSON.stringify(next))
    setViews(next)
  }
  return (
    <section aria-labelledby="saved-views-title" className="mb-4 flex flex-wrap items-center gap-2 text-sm">
      <h2 id="saved-views-title" className="text-xs font-medium">Saved views</h2>
      {views.length === 0 ? <span className="text-xs text-slate-600 dark:text-slate-300">none in this browser</span> : (
        <ul className="flex flex-wrap gap-2 text-xs">
          {views.map((v) => (
            <li key={v.name} className="flex items-center gap-1">
              <Link href={`/activity${v.query ? `?${v.query}` : ''}`} className="text-sky-700 underline dark:text-sky-300">{v.name}</Link>
              <Button className="px-1.5 py-0 text-xs" aria-label={`Forget the view ${v.name}`} onClick={() => store(views.filter((w) => w.name !== v.name))}>×</Button>
            </li>
          ))}
        </ul>
      )}
      <form aria-label="Save this view" className="flex items-center gap-1" onSubmit={(e) => {
        e.preventDefault()
        const name = viewName.safeParse(new FormData(e.currentTarget).get('name'))
        if (!name.success) return setError(`name: ${name.error.issues[0].message}`)
        if (views.length >= 50 && !views.some((v) => v.name === name.data)) return setError('name: at most 50 views; forget one first')
        setError(null)
        // a name saved again points at the current filters
        store([...views.filter((v) => v.name !== name.data), { name: name.data, query }])
        e.currentTarget.reset()
      }}>
        <label htmlFor="view-name" className="text-xs">View name</label>
        <input id="view-name" name="name" className={`w-40 ${inputClass}`} />
        <Button type="submit" className="px-2 py-0.5 text-xs">Save these filters</Button>
        {error && <span role="alert" className="text-xs text-red-700 dark:text-red-400">{error}</span>}
      </form>
    </section>
  )
}
