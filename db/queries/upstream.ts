import 'server-only'
import { and, desc, eq, sql } from 'drizzle-orm'
import type { Db, DbLike, Tx } from '@/db/client'
import { serverLogs, serverOauth } from '@/db/schema'
import { openOauth, sealOauth, type OAuthState } from '@/db/secrets'
import { writeRecords } from '@/db/write'
import { LOG_LINE_MAX } from '@/lib/core/log'

/** The last `n` log lines of a server, oldest first. */
export function readLogs(db: DbLike, serverName: string, n = 50) {
  return db.select().from(serverLogs).where(eq(serverLogs.serverName, serverName)).orderBy(desc(serverLogs.id)).limit(n).all().reverse()
}

export const LOG_LINES_KEPT = 200

/** Append log lines and keep only the last LOG_LINES_KEPT per server. */
export function appendLogs(db: Db, lines: { serverName: string; at: number; stream: 'stderr' | 'event'; line: string }[]): Promise<void> {
  if (!lines.length) return Promise.resolve()
  return writeRecords(db, (tx) => {
    for (const l of lines) tx.insert(serverLogs).values({ ...l, line: l.line.slice(0, LOG_LINE_MAX) }).run()
    for (const name of new Set(lines.map((l) => l.serverName))) {
      tx.delete(serverLogs).where(and(eq(serverLogs.serverName, name), sql`${serverLogs.id} < (select ${serverLogs.id} from ${serverLogs}
        where ${serverLogs.serverName} = ${name} order by ${serverLogs.id} desc limit 1 offset ${LOG_LINES_KEPT - 1})`)).run()
    }
  })
}

/** Change a server's OAuth client state (made when it has none), sealing its secrets, inside the caller's write transaction. */
export function saveOauth(tx: Tx, server: string, values: Partial<OAuthState>): void {
  const v = { ...sealOauth(tx, values), updatedAt: Date.now() }
  tx.insert(serverOauth).values({ serverName: server, ...v }).onConflictDoUpdate({ target: serverOauth.serverName, set: v }).run()
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
