import type { Db } from '@/db/client'
import { issueSession } from '@/lib/auth/operator-sessions'
import { SESSION_COOKIE, SESSION_KEY_HEADER } from '@/lib/dashboard/session-cookie'

/** A fresh operator session, as the headers a signed-in page sends: the cookie and the session key. */
export async function operatorSessionHeaders(db: Db): Promise<Record<string, string>> {
  const { value, key } = await issueSession(db)
  return { cookie: `${SESSION_COOKIE}=${value}`, [SESSION_KEY_HEADER]: key }
}
