import type { Tx } from '../../db/client'
import { insertActivity } from '../activity/record'
import { mintRequestId } from '../activity/request-id'
import type { ActivityType } from '../activity/vocabulary'
import type { ActionContext } from './tools'

export interface Change<T> { target: string; server?: string; before: T | null; after: T | null }

/** The activity record of one operator change: who, what, before and after (inside the change's transaction). */
export function recordChange<T>(tx: Tx, type: ActivityType, ctx: ActionContext, change: Change<T>, now = Date.now()) {
  const record = insertActivity(tx, {
    requestId: ctx.requestId ?? mintRequestId(now), type, actor: ctx.actor, server: change.server, at: now,
    data: { target: change.target, before: change.before, after: change.after },
  })
  return { activityId: record.id, requestId: record.requestId }
}
