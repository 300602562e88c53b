'use client'

import Link from 'next/link'
import { useRef, useState } from 'react'
import { groupByRequest, settleCalls, type ActivityItem } from '@/lib/activity/present'
import { ErrorNote } from '@/components/error-note'
import { Empty } from '@/components/ui'
import { ActivityLine } from './activity-item'
import { RecordDrawer } from './record-drawer'
import { useActivityStream, type StreamStatus } from './use-activity-stream'

/** New records kept on the page; past this the oldest arrivals give way (Newest reloads them all). */
const MAX_ARRIVED = 1_000

const statusText: Record<StreamStatus, string> = {
  off: 'Older records: live updates show on the first page.',
  connecting: 'Connecting to live updates…',
  live: 'Live: new records appear here as they are recorded.',
  reconnecting: 'Live updates interrupted: reconnecting…',
  'signed-out': 'Live updates stopped.',
}

/**
 * The timeline, grouped by request_id, newest first. On the first page it stays live: records
 * recorded after `after` (the newest id when the page rendered) are pushed by the server and
 * merged in at the top, highlighted.
 */
export function Timeline({ initial, filters, after, live }: { initial: ActivityItem[]; filters: string; after: number; live: boolean }) {
  const seen = useRef(new Set(initial.map((i) => i.id)))
  const [arrived, setArrived] = useState<{ items: ActivityItem[]; count: number }>({ items: [], count: 0 })
  const status = useActivityStream(live ? filters : null, after, (batch) =>
    setArrived((a) => ({ items: [...batch].reverse().concat(a.items).slice(0, MAX_ARRIVED), count: a.count + batch.length })))
  // a call on the page shows as running until its outcome arrives
  const items = settleCalls([...arrived.items, ...initial])
  // the record shown whole, and the line it was opened from (focus goes back there)
  const [opened, setOpened] = useState<number | null>(null)
  const opener = useRef<HTMLElement | null>(null)
  const openRecord = (it: ActivityItem, line: HTMLElement) => {
    opener.current = line
    setOpened(it.id)
  }
  const shown = opened === null ? undefined : items.find((it) => it.id === opened)
  return (
    <div>
      <p className="mb-2 text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
        {statusText[status]}
        {arrived.count > 0 && ` ${arrived.count} new since this page loaded${arrived.count > MAX_ARRIVED ? ` (the newest ${MAX_ARRIVED} shown)` : ''}.`}
      </p>
      {status === 'signed-out' && <ErrorNote error="Your session ended: sign in again to keep the timeline live." fix="Reload the page and sign in." />}
      {items.length === 0 ? <Empty>No activity matches these filters yet.</Empty> : (
        <ol className="space-y-3" aria-label="Activity grouped by request">
          {groupByRequest(items).map((g) => (
            <li key={`${g.request_id}-${g.items[0].id}`} className="overflow-hidden rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
              <div className="flex items-center justify-between border-b border-slate-100 bg-slate-50 px-3 py-1.5 dark:border-slate-800 dark:bg-slate-950">
                <Link href={`/activity/${g.request_id}`} className="font-mono text-xs text-sky-700 underline dark:text-sky-300">{g.request_id}</Link>
                <span className="text-xs text-slate-600 dark:text-slate-300">{g.items.length} record{g.items.length === 1 ? '' : 's'}</span>
              </div>
              <ul className="divide-y divide-slate-100 dark:divide-slate-800">
                {g.items.map((it) => <ActivityLine key={it.id} item={it} fresh={!seen.current.has(it.id)} onOpen={openRecord} />)}
              </ul>
            </li>
          ))}
        </ol>
      )}
      {shown && <RecordDrawer item={shown} onClose={() => {
        setOpened(null)
        opener.current?.focus()
      }} />}
    </div>
  )
}
