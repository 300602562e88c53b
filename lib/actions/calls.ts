'use server'

import 'server-only'
import { callById } from '@/db/queries/calls'
import { decideCall } from '@/lib/approvals/calls'
import { isDestructive, twoPersonGate } from '@/lib/approvals/two-person'
import { approveCallSchema, denyCallSchema } from '@/lib/schemas/actions'
import { operatorAction } from './safe-action'

/**
 * Approve one held call as shown: it runs once, for the caller waiting on it (or its identical
 * retry), while its tool still has the pin the inbox showed — and the gate still lets it.
 */
export const approveCallAction = operatorAction('approve',
  approveCallSchema,
  async ({ id, pin }, { db, by }) => {
    const held = callById(db, id)
    const gate = held && await twoPersonGate(db, { kind: 'call', target: id, subject: pin ?? '', destructive: isDestructive(db, `${held.serverName}:${held.toolName}`) }, by)
    return !gate || gate.proceed ? (await decideCall(db, id, 'approve', by, { shownPin: pin ?? undefined })).status : gate
  },
)

/** Deny one held call, optionally saying why (the caller is told). */
export const denyCallAction = operatorAction('approve',
  denyCallSchema,
  async ({ id, reason }, { db, by }) => (await decideCall(db, id, 'deny', by, { reason: reason || undefined })).status,
)
