import { z } from 'zod'
import { badRequest } from '@/lib/core/errors'

/** A PostgreSQL connection URL as toolgate takes one (--to, --database-url, $TOOLGATE_DATABASE_URL). */
const databaseUrl = z.string().trim().min(1, 'is empty').refine((s) => {
  try {
    const u = new URL(s)
    return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname !== ''
  } catch {
    return false
  }
}, 'is not a postgres://user:password@host:port/database URL')

/** The URL with its password replaced by ***: the only form any message shows. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.href
  } catch {
    return '(a URL that does not parse)'
  }
}

/** `text` with the URL's password (as given, and percent-decoded) masked, for messages that quote a driver or a server. */
export function maskIn(text: string, url: string): string {
  let password = ''
  try {
    password = new URL(url).password
  } catch {
    return text
  }
  if (!password) return text
  return [password, decodeURIComponent(password)].reduce((t, p) => t.split(p).join('***'), text)
}

/** The URL checked, or a bad-request error naming where it came from (never its password). */
export function parseDatabaseUrl(raw: string, from: string): string {
  const r = databaseUrl.safeParse(raw)
  if (!r.success) throw badRequest(`${from} ${r.error.issues[0].message}: ${maskUrl(raw)}`)
  return r.data
}
