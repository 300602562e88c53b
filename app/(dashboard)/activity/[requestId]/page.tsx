import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { ActivityLine } from '@/components/activity/activity-item'
import { Card, Empty, PageHeader, Pill } from '@/components/ui'
import { VerdictBadge } from '@/components/verdict'
import type { ActivityItem } from '@/lib/activity/present'
import { canViewPage } from '@/lib/dashboard/operator'
import { loadRequestStory } from '@/lib/dashboard/pages/activity'
import { exitCodes, type Verdict } from '@/lib/preflight/taxonomy'

export const metadata: Metadata = { title: 'Request' }

interface CheckData {
  tools: { id: string; status: string; reason?: string }[]
  ids_raw?: number; ids_unique?: number; as?: string; profile?: string; policy?: Record<string, boolean>; duration_ms?: number
}

/** `/activity/<request_id>`: one request's story — the check, its verdicts, the fixes, what followed. */
export default async function RequestPage({ params }: { params: Promise<{ requestId: string }> }) {
  const { requestId } = await params
  if (!(await canViewPage(`/activity/${encodeURIComponent(requestId)}`))) return null
  const { items, followed } = loadRequestStory(requestId)
  // nothing recorded under it: not-found.tsx says why (a malformed id, or none recorded)
  if (items.length === 0) notFound()
  const lastCheck = items.filter((i) => i.type === 'preflight').at(-1)
  return (
    <>
      <PageHeader title="Request story">
        <span className="font-mono">{requestId}</span> · <Link className="text-sky-700 underline dark:text-sky-300" href={`/activity?request_id=${encodeURIComponent(requestId)}`}>in the timeline</Link>
      </PageHeader>
      <div className="space-y-4">
        {lastCheck && <CheckCard check={lastCheck} requestId={requestId} />}
        <Card title="What happened, in order">
          <ol className="divide-y divide-slate-100 dark:divide-slate-800">
            {items.map((it) => <ActivityLine key={it.id} item={it} />)}
          </ol>
        </Card>
        <Card title="What followed on these servers">
          {followed.length === 0 ? <Empty>Nothing else has happened on these servers since.</Empty> : (
            <ol className="divide-y divide-slate-100 dark:divide-slate-800">
              {followed.map((it) => <ActivityLine key={it.id} item={it} />)}
            </ol>
          )}
        </Card>
      </div>
    </>
  )
}

function CheckCard({ check, requestId }: { check: ActivityItem; requestId: string }) {
  const d = check.data as unknown as CheckData
  const verdict = check.verdict as Verdict
  const rerun = new URLSearchParams([...d.tools.map((t) => ['id', t.id]), ['run', '1']])
  // who the check ran as: the agent token itself, or the token an operator checked as (data.as); the actor is who ran it
  const as = d.as ?? check.actor
  if (as.startsWith('token:')) rerun.set('token', as.slice('token:'.length))
  if (d.profile) rerun.set('profile', d.profile)
  for (const [k, v] of Object.entries(d.policy ?? {})) if (v) rerun.set(k, '1')
  return (
    <Card title={<span className="flex flex-wrap items-center gap-3">Latest check <VerdictBadge verdict={verdict} exitCode={exitCodes[verdict] ?? 1} /></span>}>
      <p className="mb-3 text-xs text-slate-600 dark:text-slate-400">
        via {check.surface} · {check.tier} tier as {as}{d.as && <> · run by {check.actor}</>} · {d.ids_unique ?? d.tools.length} unique of {d.ids_raw ?? d.tools.length} requested ids
        {d.profile && <> · profile {d.profile}</>}{d.duration_ms !== undefined && <> · {d.duration_ms} ms</>}
      </p>
      <table className="w-full text-sm" aria-label={`Verdicts of ${requestId}`}>
        <thead className="text-left text-xs text-slate-600 dark:text-slate-300"><tr><th scope="col">Id</th><th scope="col">Status</th><th scope="col">Reason</th></tr></thead>
        <tbody>
          {d.tools.map((t) => (
            <tr key={t.id} className="border-t border-slate-100 dark:border-slate-800">
              <th scope="row" className="py-1 text-left font-mono text-xs font-normal">{t.id}</th>
              <td><Pill tone={t.status === 'ready' ? 'good' : 'bad'}>{t.status}</Pill></td>
              <td className="font-mono text-xs">{t.reason ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="mt-3"><Link className="text-sm text-sky-700 underline dark:text-sky-300" href={`/preflight?${rerun}`}>Run this check again in Preflight, with causes and fixes →</Link></p>
    </Card>
  )
}
