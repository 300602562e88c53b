import type { DbLike } from '../../db/client'
import { activity, activityServers, type ActivityRow } from '../../db/schema'
import type { ActivityType, Surface } from './vocabulary'

export interface ActivityInput {
  requestId: string
  type: ActivityType
  actor: string
  surface?: Surface
  tier?: 'operator' | 'agent'
  verdict?: string
  server?: string
  /** further servers the record concerns (a check's ids), for the server filter */
  servers?: Iterable<string>
  data: Record<string, unknown>
  at?: number
}

/**
 * Append one record, synchronously and durably (synchronous=FULL): callers answer only after
 * this returns, so a verdict never exists without its record. Throws if the write fails.
 * Its rows (record + servers) commit together: in the caller's transaction, or in one here.
 */
export function recordActivity(db: DbLike, input: ActivityInput): ActivityRow {
  return db.transaction((tx) => {
    const row = tx.insert(activity).values({
      requestId: input.requestId,
      at: input.at ?? Date.now(),
      type: input.type,
      surface: input.surface ?? null,
      actor: input.actor,
      tier: input.tier ?? null,
      verdict: input.verdict ?? null,
      server: input.server ?? null,
      data: input.data,
    }).returning().get()
    const servers = new Set(input.servers)
    if (input.server) servers.add(input.server)
    for (const server of servers) tx.insert(activityServers).values({ server, activityId: row.id }).run()
    return row
  })
}
