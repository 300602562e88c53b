import 'server-only'
import { desc, eq } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
import { serverLogs, serverOauth } from '@/db/schema'

/** The last `n` log lines of a server, oldest first. */
export function readLogs(db: DbLike, serverName: string, n = 50) {
  return db.select().from(serverLogs).where(eq(serverLogs.serverName, serverName)).orderBy(desc(serverLogs.id)).limit(n).all().reverse()
}

/** A server's OAuth client state (registered client, tokens, the login in flight). */
export function oauthOf(db: DbLike, server: string) {
  return db.select().from(serverOauth).where(eq(serverOauth.serverName, server)).get()
}

/** The login in flight with this OAuth state parameter. */
export function oauthByState(db: DbLike, state: string) {
  return db.select().from(serverOauth).where(eq(serverOauth.state, state)).get()
}
