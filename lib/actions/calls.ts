'use server'

import 'server-only'
import { z } from 'zod'
import { callById } from '@/db/queries/calls'
import { decideCall } from '@/lib/approvals/calls'
import { isDestructive, twoPersonGate } from '@/lib/approvals/two-person'
import { operatorAction } from './safe-action'

const callId = z.string().regex(/^call_[A-Za-z0-9_-]{1,40}$/, 'a call id looks like call_…')

/**
 * Approve one held call as shown: it runs once, for the caller waiting on it (or its identical
 * retry), while its tool still has the pin the inbox showed — and the gate still lets it.
 */
export const approveCallAction = operatorAction('approve',
  // null: a call requested before pins were kept with it, which cannot be approved as shown
  z.strictObject({ id: callId, pin: z.string().max(200, 'a pin is at most 200 characters').nullable() }),
  async ({ id, pin }, { db, by }) => {
    const held = callById(db, id)
    const gate = held && await twoPersonGate(db, { kind: 'call', target: id, subject: pin ?? '', destructive: isDestructive(db, `${held.serverName}:${held.toolName}`) }, by)
    return !gate || gate.proceed ? (await decideCall(db, id, 'approve', by, { shownPin: pin ?? undefined })).status : gate
  },
)

/** Deny one held call, optionally saying why (the caller is told). */
export const denyCallAction = operatorAction('approve',
  z.strictObject({ id: callId, reason: z.string().trim().max(500, 'a reason is at most 500 characters').optional() }),
  async ({ id, reason }, { db, by }) => (await decideCall(db, id, 'deny', by, { reason: reason || undefined })).status,
)
