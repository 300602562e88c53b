import Link from 'next/link'
import type { KeyboardEvent, MouseEvent } from 'react'
import { callFacts, type ActivityItem } from '@/lib/activity/present'
import { Pill } from '@/components/ui'
import { RelativeTime } from '@/components/relative-time'
import { VerdictPill } from '@/components/verdict'
import { tokenPage } from '@/lib/dashboard/fixes'
import { CallArguments } from './call-arguments'

const outcomeTone = (o: string) => (o === 'ok' ? 'good' : o === 'held' || o === 'running' ? 'warn' : o === 'unknown' ? 'muted' : 'bad')

/** A call's facts on its row: how it ended and in how long, its held-call id (and, on demand, its arguments), who decided it. */
function CallFactsLine({ item }: { item: ActivityItem }) {
  const f = callFacts(item)
  if (!f.outcome && !f.call_id && !f.approver) return null
  return (
    <span className="inline-flex flex-wrap items-baseline gap-x-2 text-xs" data-testid="call-facts">
      {f.outcome && <Pill tone={outcomeTone(f.outcome)}>{f.outcome}</Pill>}
      {f.reason && <code>{f.reason}</code>}
      {f.duration_ms !== undefined && <span>{f.duration_ms} ms</span>}
      {f.call_id && <span>call <span className="font-mono">{f.call_id}</span></span>}
      {f.approver && <span>by <span className="font-mono">{f.approver}</span></span>}
      {f.call_id && <CallArguments callId={f.call_id} />}
    </span>
  )
}

/**
 * One activity record on a line: when, what, where from, who, the verdict, a call's outcome and duration, and a summary.
 * With `onOpen`, a click on the line (not on a link or button in it) or Enter on it opens the record.
 */
export function ActivityLine({ item, fresh = false, onOpen }: { item: ActivityItem; fresh?: boolean; onOpen?: (item: ActivityItem, line: HTMLElement) => void }) {
  const opens = onOpen && {
    tabIndex: 0,
    title: 'Show the whole record (Enter)',
    onClick: (e: MouseEvent<HTMLLIElement>) => { if (!(e.target as HTMLElement).closest('a, button, summary, input')) onOpen(item, e.currentTarget) },
    onKeyDown: (e: KeyboardEvent<HTMLLIElement>) => {
      if (e.key !== 'Enter' || e.target !== e.currentTarget) return
      e.preventDefault()
      onOpen(item, e.currentTarget)
    },
  }
  return (
    <li data-testid="activity-record" data-type={item.type} data-id={item.id} data-actor={item.actor} data-call={item.call?.state} {...opens}
      className={`flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2 text-sm ${onOpen ? 'cursor-pointer hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-sky-600 dark:hover:bg-slate-800/50' : ''} ${fresh ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}>
      <RelativeTime iso={item.at} className="w-40 shrink-0 text-xs text-slate-600 dark:text-slate-300" />
      <Pill tone={item.type === 'preflight' ? 'info' : 'muted'}>{item.type}</Pill>
      {item.surface && <span className="text-xs text-slate-600 dark:text-slate-300">via {item.surface}</span>}
      {item.actor.startsWith('token:')
        ? <Link href={tokenPage(item.actor.slice('token:'.length))} className="text-xs text-sky-700 underline dark:text-sky-300">{item.actor}</Link>
        : <span className="text-xs">{item.actor}</span>}
      <VerdictPill verdict={item.verdict} />
      <CallFactsLine item={item} />
      {item.server && <Link href={`/servers/${encodeURIComponent(item.server)}`} className="font-mono text-xs text-sky-700 underline dark:text-sky-300">{item.server}</Link>}
      {/* takes a line of its own where the row is narrow, so ids break at spaces, not inside a name */}
      <span className="min-w-0 flex-1 basis-64 break-words text-xs text-slate-600 dark:text-slate-300">{item.summary}</span>
    </li>
  )
}
