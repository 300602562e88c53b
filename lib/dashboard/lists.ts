import type { SearchParams } from './search-params'
import { searchValue } from './search-params'

/** Rows per page on a paged dashboard list: small enough that a page's HTML stays small at 5,000 tools. */
export const PAGE_SIZE = 50

/** What a list is asked for in the URL (`?q=…&show=…&sort=…&page=…`), so a view can be linked and reloaded. */
export interface ListQuery<F extends string, S extends string> { q: string; show: F; sort: S; page: number }

/**
 * A list's query from the URL. Anything unknown falls back to the first choice (the default)
 * rather than failing: a stale link still opens the list. `prefix` keeps two lists on one page apart.
 */
export function listQuery<F extends string, S extends string>(sp: SearchParams, shows: readonly F[], sorts: readonly S[], prefix = ''): ListQuery<F, S> {
  const pick = <T extends string>(v: string | undefined, from: readonly T[]): T => (from as readonly string[]).includes(v ?? '') ? v as T : from[0]
  const page = Number(searchValue(sp[`${prefix}page`]))
  return {
    q: (searchValue(sp[`${prefix}q`]) ?? '').trim().slice(0, 200),
    show: pick(searchValue(sp[`${prefix}show`]), shows),
    sort: pick(searchValue(sp[`${prefix}sort`]), sorts),
    page: Number.isInteger(page) && page > 0 ? page : 1,
  }
}

export interface Paged<T> { items: T[]; page: number; pages: number; total: number; from: number }

/** One page of `items` (a page past the end shows the last one). */
export function pageOf<T>(items: readonly T[], page: number, size = PAGE_SIZE): Paged<T> {
  const pages = Math.max(1, Math.ceil(items.length / size))
  const p = Math.min(page, pages)
  return { items: items.slice((p - 1) * size, p * size), page: p, pages, total: items.length, from: (p - 1) * size }
}

/** Case-insensitive substring match of any of `fields`. */
export const matches = (q: string, ...fields: (string | null | undefined)[]) => !q || fields.some((f) => f?.toLowerCase().includes(q.toLowerCase()))

/** The URL of a list's query, defaults left out (the pager adds the page). */
export function querySearch(q: ListQuery<string, string>, defaults: { show: string; sort: string }, prefix = ''): URLSearchParams {
  const p = new URLSearchParams()
  if (q.q) p.set(`${prefix}q`, q.q)
  if (q.show !== defaults.show) p.set(`${prefix}show`, q.show)
  if (q.sort !== defaults.sort) p.set(`${prefix}sort`, q.sort)
  return p
}
