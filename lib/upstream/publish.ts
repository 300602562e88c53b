import { desc, eq, lt, and } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { serverConnections, serverLogs, type ConnectionAction, type ConnectionState } from '../../db/schema'

/** Publish a server's connection state, the one thing preflight reads about the runtime. */
export function publishState(db: Db, serverName: string, state: ConnectionState, detail: string | null = null, action: ConnectionAction | null = null): void {
  const values = { state, detail, action, updatedAt: Date.now() }
  db.insert(serverConnections).values({ serverName, ...values })
    .onConflictDoUpdate({ target: serverConnections.serverName, set: values }).run()
}

export const LOG_LINES_KEPT = 200

/** Append log lines and keep only the last LOG_LINES_KEPT per server. */
export function appendLogs(db: Db, lines: { serverName: string; at: number; stream: 'stderr' | 'event'; line: string }[]): void {
  if (!lines.length) return
  db.transaction((tx) => {
    for (const l of lines) tx.insert(serverLogs).values({ ...l, line: l.line.slice(0, 2000) }).run()
    for (const name of new Set(lines.map((l) => l.serverName))) {
      const cutoff = tx.select({ id: serverLogs.id }).from(serverLogs).where(eq(serverLogs.serverName, name))
        .orderBy(desc(serverLogs.id)).limit(1).offset(LOG_LINES_KEPT - 1).get()
      if (cutoff) tx.delete(serverLogs).where(and(eq(serverLogs.serverName, name), lt(serverLogs.id, cutoff.id))).run()
    }
  })
}

/** The last `n` log lines of a server, oldest first. */
export function readLogs(db: Db, serverName: string, n = 50) {
  return db.select().from(serverLogs).where(eq(serverLogs.serverName, serverName)).orderBy(desc(serverLogs.id)).limit(n).all().reverse()
}
