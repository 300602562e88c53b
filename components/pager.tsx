import Link from 'next/link'
import type { Paged } from '@/lib/dashboard/lists'

/** "51–100 of 5,000" with previous/next links that keep the rest of the URL (`params`). */
export function Pager({ paged, path, params, prefix = '', anchor = '', noun }: {
  paged: Pick<Paged<unknown>, 'page' | 'pages' | 'total' | 'from' | 'items'>; path: string; params: URLSearchParams; prefix?: string; anchor?: string; noun: string
}) {
  const href = (page: number) => {
    const q = new URLSearchParams(params)
    if (page > 1) q.set(`${prefix}page`, String(page)); else q.delete(`${prefix}page`)
    return `${path}${q.size ? `?${q}` : ''}${anchor}`
  }
  const { page, pages, total, from, items } = paged
  return (
    <nav aria-label={`Pages of ${noun}`} className="mt-3 flex flex-wrap items-center gap-3 text-sm">
      <span data-testid="pager-range">{total === 0 ? `no ${noun}` : `${from + 1}–${from + items.length} of ${total.toLocaleString('en')} ${noun}`}</span>
      {page > 1 && <Link className="text-sky-700 underline dark:text-sky-300" href={href(page - 1)} rel="prev">← Previous</Link>}
      {pages > 1 && <span className="text-xs text-slate-600 dark:text-slate-300">page {page} of {pages}</span>}
      {page < pages && <Link className="text-sky-700 underline dark:text-sky-300" href={href(page + 1)} rel="next">Next →</Link>}
    </nav>
  )
}
