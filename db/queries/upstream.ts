import 'server-only'
import { desc, eq } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
import { serverLogs, serverOauth } from '@/db/schema'
import { openOauth, type OAuthState } from '@/db/secrets'

/** The last `n` log lines of a server, oldest first. */
export function readLogs(db: DbLike, serverName: string, n = 50) {
  return db.select().from(serverLogs).where(eq(serverLogs.serverName, serverName)).orderBy(desc(serverLogs.id)).limit(n).all().reverse()
}

/** A server's OAuth client state (registered client, tokens, the login in flight), decrypted. */
export function oauthOf(db: DbLike, server: string): OAuthState | undefined {
  const row = db.select().from(serverOauth).where(eq(serverOauth.serverName, server)).get()
  return row && openOauth(db, row)
}

/** The login in flight with this OAuth state parameter, decrypted. */
export function oauthByState(db: DbLike, state: string): OAuthState | undefined {
  const row = db.select().from(serverOauth).where(eq(serverOauth.state, state)).get()
  return row && openOauth(db, row)
}
