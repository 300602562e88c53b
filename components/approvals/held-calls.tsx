'use client'

import { Card, LinkButton } from '@/components/ui'
import { AgentWait } from './countdown'
import { useInbox } from './inbox'

/**
 * The Overview's first card: calls held for an operator right now, each with how long its agent
 * still waits. Live (the Approvals inbox's own poll); nothing shows while none is held.
 */
export function HeldCallsCard() {
  const inbox = useInbox()
  const pending = inbox.data?.pending ?? []
  if (!pending.length) return null
  return (
    <Card className="mb-4 border-amber-400 dark:border-amber-700" title={`Calls held for your approval (${pending.length})`}>
      <ul className="divide-y divide-slate-100 dark:divide-slate-800" aria-label="Calls held for your approval">
        {pending.map((c) => (
          <li key={c.id} data-testid={`held-${c.id}`} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2 text-sm">
            <span className="font-mono font-medium">{c.tool}</span>
            <span className="text-xs text-slate-600 dark:text-slate-300">by {c.caller}</span>
            <span className="text-xs"><AgentWait until={c.agent_waits_until} expires={c.expires_at} /></span>
            <LinkButton variant="primary" className="ml-auto" href={`/approvals#call-${encodeURIComponent(c.id)}`} aria-label={`Decide call ${c.id} of ${c.tool}`}>Decide</LinkButton>
          </li>
        ))}
      </ul>
    </Card>
  )
}
