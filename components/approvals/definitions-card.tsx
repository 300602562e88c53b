'use client'

import { approveDefinitionAction } from '@/lib/actions/servers'
import type { DefinitionReview } from '@/lib/approvals/review'
import { showInvisible } from '@/lib/approvals/findings'
import { ActionButton } from '@/components/action-button'
import { Empty, Pill } from '@/components/ui'
import { DefinitionReviewView } from './tool-review'

const tone = (s: DefinitionReview['status']) => (s === 'approved' ? 'good' : s === 'changed' ? 'bad' : 'warn')
const kindLabel: Record<DefinitionReview['kind'], string> = { instructions: 'instructions', prompt: 'prompt', resource: 'resource', resource_template: 'resource template' }

/**
 * A server's instructions, prompts, resources and templates, each with its approval: one that
 * waits (new, changed, or seen in an inspection) is shown in full review with an approve button
 * that carries the pin shown, as for a tool.
 */
export function DefinitionsCard({ reviews }: { reviews: DefinitionReview[] }) {
  if (reviews.length === 0) return <Empty>This server offers no instructions, prompts or resources (or has not listed them yet).</Empty>
  return (
    <ul className="space-y-3" aria-label="Instructions, prompts and resources">
      {reviews.map((r) => (
        <li key={`${r.kind} ${r.id}`} data-testid={`definition-${r.id}`} className="rounded border border-slate-200 p-2 dark:border-slate-800">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <span className="font-mono">{showInvisible(r.id)}</span>
            <Pill tone="muted">{kindLabel[r.kind]}</Pill>
            <Pill tone={tone(r.status)}>{r.status}</Pill>
            <span className="text-xs text-slate-600 dark:text-slate-400">{r.served ? 'served to agents' : 'not served to agents'}</span>
          </div>
          {r.status !== 'approved' && (
            <div className="mt-2 space-y-2">
              <DefinitionReviewView review={r} />
              <ActionButton action={approveDefinitionAction} permission="approve" input={{ group: r.group, id: r.id, hash: r.pin }}
                label="Approve this definition" name={`Approve ${kindLabel[r.kind]} ${r.id}`} variant="primary" />
            </div>
          )}
        </li>
      ))}
    </ul>
  )
}
