'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useRef } from 'react'
import { groupByRequest, type ActivityItem } from '@/lib/activity/present'
import { ErrorNote } from '@/components/error-note'
import { Empty } from '@/components/ui'
import { ActivityLine } from './activity-item'

const POLL_MS = 2000

/**
 * The timeline, grouped by request_id, newest first. On the first page it stays live: the
 * newest page for the same filters is polled from an authenticated route, and records that
 * arrived since the page rendered are merged in at the top (highlighted).
 */
export function Timeline({ initial, query, live }: { initial: ActivityItem[]; query: string; live: boolean }) {
  const seen = useRef(new Set(initial.map((i) => i.id)))
  const poll = useQuery({
    queryKey: ['activity', query],
    queryFn: async () => {
      const res = await fetch(`/api/dashboard/activity${query}`, { cache: 'no-store' })
      const body = await res.json()
      if (!res.ok) throw new Error(res.status === 401 ? 'Your session ended: sign in again to keep the timeline live.' : body.error)
      return body.items as ActivityItem[]
    },
    enabled: live,
    refetchInterval: POLL_MS,
  })
  const newest = live && poll.data ? poll.data : []
  const floor = initial[0]?.id ?? 0
  const arrived = newest.filter((i) => i.id > floor)
  const items = [...arrived, ...initial]
  return (
    <div>
      <p className="mb-2 text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
        {live ? (poll.isError ? 'Live updates paused.' : `Live: new records appear here (checked every ${POLL_MS / 1000} s).`) : 'Older records: live updates show on the first page.'}
        {arrived.length > 0 && ` ${arrived.length} new since this page loaded.`}
      </p>
      {poll.isError && <ErrorNote error={(poll.error as Error).message} fix="Reload the page; if it persists, sign in again." />}
      {items.length === 0 ? <Empty>No activity matches these filters yet.</Empty> : (
        <ol className="space-y-3" aria-label="Activity grouped by request">
          {groupByRequest(items).map((g) => (
            <li key={`${g.request_id}-${g.items[0].id}`} className="overflow-hidden rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
              <div className="flex items-center justify-between border-b border-slate-100 bg-slate-50 px-3 py-1.5 dark:border-slate-800 dark:bg-slate-950">
                <Link href={`/activity/${g.request_id}`} className="font-mono text-xs text-sky-700 underline dark:text-sky-300">{g.request_id}</Link>
                <span className="text-xs text-slate-600 dark:text-slate-300">{g.items.length} record{g.items.length === 1 ? '' : 's'}</span>
              </div>
              <ul className="divide-y divide-slate-100 dark:divide-slate-800">
                {g.items.map((it) => <ActivityLine key={it.id} item={it} fresh={!seen.current.has(it.id)} />)}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </div>
  )
}
