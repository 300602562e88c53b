import { z } from 'zod'
import { maskUrl } from '@/db/pg/url'
import { badRequest } from '@/lib/core/errors'

/** A PostgreSQL connection URL as toolgate takes one (--to, --database-url, $TOOLGATE_DATABASE_URL). */
const databaseUrlSchema = z.string().trim().min(1, 'is empty').refine((s) => {
  try {
    const u = new URL(s)
    return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname !== ''
  } catch {
    return false
  }
}, 'is not a postgres://user:password@host:port/database URL')

/** The URL checked, or a bad-request error naming where it came from (never its password). */
export function parseDatabaseUrl(raw: string, from: string): string {
  const r = databaseUrlSchema.safeParse(raw)
  if (!r.success) throw badRequest(`${from} ${r.error.issues[0].message}: ${maskUrl(raw)}`)
  return r.data
}
