import { and, desc, eq, lt, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { activity, activityServers, type ActivityRow } from '../../db/schema'

export interface ActivityFilter {
  requestId?: string
  type?: string
  verdict?: string
  server?: string
  surface?: string
  before?: number // id cursor: rows with a smaller id
  limit?: number
}

/** Newest first, keyset-paged by id so deep pages stay as fast as the first. */
export function listActivity(db: Db, f: ActivityFilter = {}): ActivityRow[] {
  const where: SQL[] = []
  if (f.requestId) where.push(eq(activity.requestId, f.requestId))
  if (f.type) where.push(eq(activity.type, f.type))
  if (f.verdict) where.push(eq(activity.verdict, f.verdict))
  if (f.surface) where.push(eq(activity.surface, f.surface))
  if (f.server) {
    // driven by the (server, activity_id) key: newest first, stopping after one page
    if (f.before !== undefined) where.push(lt(activityServers.activityId, f.before))
    return db.select({ a: activity }).from(activityServers).innerJoin(activity, eq(activity.id, activityServers.activityId))
      .where(and(eq(activityServers.server, f.server), ...where)).orderBy(desc(activityServers.activityId)).limit(f.limit ?? 50)
      .all().map((r) => r.a)
  }
  if (f.before !== undefined) where.push(lt(activity.id, f.before))
  return db.select().from(activity).where(and(...where)).orderBy(desc(activity.id)).limit(f.limit ?? 50).all()
}

export function getActivity(db: Db, id: number): ActivityRow | undefined {
  return db.select().from(activity).where(eq(activity.id, id)).get()
}
