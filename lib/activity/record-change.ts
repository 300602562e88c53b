import 'server-only'
import type { Tx } from '@/db/client'
import { insertActivity, type ActivityInput } from './record'
import { mintRequestId } from './request-id'
import type { ActivityDataByType, ActivityType } from '@/lib/core/activity'

/**
 * Who makes a change, and the request it belongs to (minted when none is given). A person's
 * change also names their account and how they were authenticated (lib/auth/roles.ts Principal).
 */
export interface ActionContext { actor: string; requestId?: string; operatorId?: string; auth?: string }

/**
 * The activity record of one change or action — who, what (before and after, for a change) —
 * written inside its own transaction, so the change and its record commit together. Every
 * operator's change and action is recorded here, with their account and how they signed in.
 */
export function recordChange<T extends ActivityType>(tx: Tx, type: T, ctx: ActionContext, data: ActivityDataByType[T], opts: { server?: string; now?: number } = {}) {
  const now = opts.now ?? Date.now()
  // the union member for this T (TypeScript cannot pick it for a generic T by itself)
  const input = { requestId: ctx.requestId ?? mintRequestId(now), type, actor: ctx.actor, server: opts.server, operatorId: ctx.operatorId, auth: ctx.auth, at: now, data } as ActivityInput
  return recordedAs(insertActivity(tx, input))
}

/** What every admin mutation returns of the record it committed with (recordChange's result). */
export const recordedAs = (record: { id: number; requestId: string }): Recorded => ({ activityId: record.id, requestId: record.requestId })
export interface Recorded { activityId: number; requestId: string }
