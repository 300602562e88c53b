'use server'

import 'server-only'
import { z } from 'zod'
import { decideCall } from '@/lib/approvals/calls'
import { operatorAction } from './safe-action'

const callId = z.string().regex(/^call_[A-Za-z0-9_-]{1,40}$/, 'a call id looks like call_…')

/** Approve one held call: it runs once, for the caller waiting on it (or its identical retry). */
export const approveCallAction = operatorAction(z.strictObject({ id: callId }), async ({ id }, { db, actor }) => (await decideCall(db, id, 'approve', { actor })).status)

/** Deny one held call, optionally saying why (the caller is told). */
export const denyCallAction = operatorAction(
  z.strictObject({ id: callId, reason: z.string().trim().max(500, 'a reason is at most 500 characters').optional() }),
  async ({ id, reason }, { db, actor }) => (await decideCall(db, id, 'deny', { actor }, reason || undefined)).status,
)
