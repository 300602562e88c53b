'use server'

import 'server-only'
import { acknowledgeItem, unacknowledgeItem } from '@/lib/admin/triage'
import { acknowledgeSchema, unacknowledgeSchema } from '@/lib/schemas/actions'
import { operatorAction } from './safe-action'

/** Acknowledge a deliberate block on the Overview: hidden until it changes, or for a snooze. */
export const acknowledgeAction = operatorAction('operate',
  acknowledgeSchema,
  async (item, { db, by }) => (await acknowledgeItem(db, item, by)).activityId,
  { refresh: true },
)

export const unacknowledgeAction = operatorAction('operate', unacknowledgeSchema, async ({ key: k }, { db, by }) => (await unacknowledgeItem(db, k, by)).activityId, { refresh: true })
