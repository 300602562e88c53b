import Link from 'next/link'
import type { ActivityItem } from '@/lib/activity/present'
import { Pill } from '@/components/ui'
import { VerdictPill } from '@/components/verdict'

const time = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' })

/** One activity record on a line: when, what, where from, who, the verdict, and a summary. */
export function ActivityLine({ item, fresh = false }: { item: ActivityItem; fresh?: boolean }) {
  return (
    <li data-testid="activity-record" data-type={item.type} data-id={item.id}
      className={`flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2 text-sm ${fresh ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}>
      <time dateTime={item.at} className="w-40 shrink-0 font-mono text-xs text-slate-500 dark:text-slate-400">{time(item.at)}</time>
      <Pill tone={item.type === 'preflight' ? 'info' : 'muted'}>{item.type}</Pill>
      {item.surface && <span className="text-xs text-slate-500 dark:text-slate-400">via {item.surface}</span>}
      <span className="text-xs">{item.actor}</span>
      <VerdictPill verdict={item.verdict} />
      {item.server && <Link href={`/servers/${encodeURIComponent(item.server)}`} className="font-mono text-xs text-sky-700 underline dark:text-sky-300">{item.server}</Link>}
      <span className="min-w-0 flex-1 break-words text-xs text-slate-600 dark:text-slate-300">{item.summary}</span>
    </li>
  )
}
