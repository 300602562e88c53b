import 'server-only'
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { serverConnections, serverLogs, type ConnectionAction, type ConnectionState } from '@/db/schema'

export interface Published { state: ConnectionState; detail?: string | null; action?: ConnectionAction | null }

/**
 * Publish a server's connection state, the one thing preflight reads about the runtime.
 * `instance` names the runtime that publishes it: such a state is believed only while that
 * runtime's lease is fresh (db/queries/preflight-state.ts).
 */
export function publishState(db: Db, serverName: string, p: Published, instance: string | null): Promise<void> {
  const values = { state: p.state, detail: p.detail ?? null, action: p.action ?? null, runtimeInstance: instance, updatedAt: Date.now() }
  return writeTransaction(db, (tx) => {
    tx.insert(serverConnections).values({ serverName, ...values })
      .onConflictDoUpdate({ target: serverConnections.serverName, set: values }).run()
  })
}

export const LOG_LINES_KEPT = 200
export const LOG_LINE_MAX = 2_000

/** Append log lines and keep only the last LOG_LINES_KEPT per server. */
export function appendLogs(db: Db, lines: { serverName: string; at: number; stream: 'stderr' | 'event'; line: string }[]): Promise<void> {
  if (!lines.length) return Promise.resolve()
  return writeTransaction(db, (tx) => {
    for (const l of lines) tx.insert(serverLogs).values({ ...l, line: l.line.slice(0, LOG_LINE_MAX) }).run()
    for (const name of new Set(lines.map((l) => l.serverName))) {
      tx.delete(serverLogs).where(and(eq(serverLogs.serverName, name), sql`${serverLogs.id} < (select ${serverLogs.id} from ${serverLogs}
        where ${serverLogs.serverName} = ${name} order by ${serverLogs.id} desc limit 1 offset ${LOG_LINES_KEPT - 1})`)).run()
    }
  })
}
