import 'server-only'
import type { DbLike } from '@/db/client'
import { serverConfig } from '@/db/queries/servers'
import { notFoundError } from '@/lib/core/errors'

/** The configured server a change is about, or the not-found error every surface reports the same way. */
export function requireServer(db: DbLike, name: string) {
  const server = serverConfig(db, name)
  if (!server) throw notFoundError(`no server "${name}" is configured`)
  return server
}
