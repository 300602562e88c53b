'use server'

import 'server-only'
import { z } from 'zod'
import { acknowledgeItem, ACK_SPANS, unacknowledgeItem, type AckSpan } from '@/lib/admin/triage'
import { operatorAction } from './safe-action'

// an Overview item's key (lib/dashboard/overview.ts causeKey) and the fingerprint it was shown with
const key = z.string().regex(/^agent:[^\n]{1,500}$/, 'an Overview item key (agent:<token>:<cause>)')
const fingerprint = z.string().regex(/^[0-9a-f]{16}$/, 'the item\'s fingerprint as shown (16 hex digits)')

/** Acknowledge a deliberate block on the Overview: hidden until it changes, or for a snooze. */
export const acknowledgeAction = operatorAction('operate',
  z.strictObject({ key, fingerprint, span: z.enum(Object.keys(ACK_SPANS) as [AckSpan, ...AckSpan[]]) }),
  async (item, { db, by }) => (await acknowledgeItem(db, item, by)).activityId,
  { refresh: true },
)

export const unacknowledgeAction = operatorAction('operate', z.strictObject({ key }), async ({ key: k }, { db, by }) => (await unacknowledgeItem(db, k, by)).activityId, { refresh: true })
