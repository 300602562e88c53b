import 'server-only'
import type { Db } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { deleteTriageAck, saveTriageAck, triageAckOf } from '@/db/queries/triage'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { badRequest } from '@/lib/core/errors'
import type { AckSpan } from '@/lib/schemas/actions'

/** How long an acknowledgement hides an item: until it changes, or a snooze of an hour or a day (ending sooner if it changes). */
export const ACK_SPANS = { until_changed: null, '1h': 3_600_000, '1d': 86_400_000 } as const satisfies Record<AckSpan, number | null>

const stateOf = (a: { fingerprint: string; until: number | null }) => ({ fingerprint: a.fingerprint, until: a.until === null ? null : new Date(a.until).toISOString() })

/** Acknowledge an Overview item as it was shown (its fingerprint), on the record with who did it. */
export function acknowledgeItem(db: Db, item: { key: string; fingerprint: string; span: AckSpan }, ctx: ActionContext) {
  return writeTransaction(db, (tx) => {
    const now = Date.now()
    const before = triageAckOf(tx, item.key)
    const span = ACK_SPANS[item.span]
    const ack = { key: item.key, fingerprint: item.fingerprint, until: span === null ? null : now + span, actor: ctx.actor, at: now }
    saveTriageAck(tx, ack)
    return recordChange(tx, 'triage.acknowledged', ctx, { target: item.key, before: before ? stateOf(before) : null, after: stateOf(ack) }, { now })
  })
}

/** Show an acknowledged item again. */
export function unacknowledgeItem(db: Db, key: string, ctx: ActionContext) {
  return writeTransaction(db, (tx) => {
    const before = triageAckOf(tx, key)
    if (!before) throw badRequest(`"${key}" is not acknowledged: nothing to show again`)
    deleteTriageAck(tx, key)
    return recordChange(tx, 'triage.unacknowledged', ctx, { target: key, before: stateOf(before), after: null })
  })
}
