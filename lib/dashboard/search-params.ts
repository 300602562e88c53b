import type { PreflightForm } from '@/lib/schemas/dashboard'
import { urlNameSchema as name } from '@/lib/schemas/names'

/** A page's search params as Next hands them over. */
export type SearchParams = Record<string, string | string[] | undefined>

const all = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v])
const first = (v: string | string[] | undefined) => all(v)[0]
const flag = (v: string | string[] | undefined) => first(v) === '1' || first(v) === 'true'

/** The server a login just completed for (`logged_in=`, set by the login's return), when well formed. */
export const loggedInFromSearch = (sp: SearchParams): string | null => {
  const v = first(sp.logged_in)
  return name.safeParse(v).success ? v! : null
}

/**
 * The preflight form from the URL (`?id=a:b&id=c:d&token=nightly&profile=ops&read_only_only=1`),
 * so a check can be linked to and shared. Anything malformed is dropped, never trusted.
 */
export function preflightFormFromSearch(sp: SearchParams): PreflightForm {
  const named = (v: string | undefined) => (name.safeParse(v).success ? v! : null)
  return {
    ids: all(sp.id).map((s) => s.trim()).filter(Boolean).slice(0, 100),
    token: named(first(sp.token)),
    profile: named(first(sp.profile)),
    policy: {
      read_only_only: flag(sp.read_only_only),
      exclude_destructive: flag(sp.exclude_destructive),
      exclude_open_world: flag(sp.exclude_open_world),
    },
  }
}

export function preflightSearch(form: PreflightForm): string {
  const q = new URLSearchParams()
  for (const id of form.ids) q.append('id', id)
  if (form.token) q.set('token', form.token)
  if (form.profile) q.set('profile', form.profile)
  for (const [k, v] of Object.entries(form.policy)) if (v) q.set(k, '1')
  const s = q.toString()
  return s ? `?${s}` : ''
}

export { all as searchValues, first as searchValue }
