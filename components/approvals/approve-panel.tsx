'use client'

import { changeToolsAction } from '@/lib/actions/servers'
import type { ToolReview } from '@/lib/approvals/review'
import { ActionButton } from '@/components/action-button'
import { highRiskQuestion, ToolReviewView } from './tool-review'

/** Review one definition, then approve exactly it: the action carries the pin that was shown. */
export function ApprovePanel({ review, label = 'Approve this definition' }: { review: ToolReview; label?: string }) {
  return (
    <div className="space-y-3">
      <ToolReviewView review={review} />
      {/* over the overlap ceiling the operator has read why above; the button says what they accept */}
      <ActionButton action={changeToolsAction} permission="approve"
        input={{ verb: 'approve' as const, ids: [review.id], hashes: { [review.id]: review.pin ?? '' }, ...(review.surface.crossings.length ? { confirm: true } : {}) }}
        label={review.surface.crossings.length ? `${label} anyway (over the overlap ceiling)` : label} confirm={highRiskQuestion(review)} variant="primary" />
    </div>
  )
}
