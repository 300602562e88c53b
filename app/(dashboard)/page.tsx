import type { Metadata } from 'next'
import Link from 'next/link'
import { ActivityLine } from '@/components/activity/activity-item'
import { ApprovePanel } from '@/components/approvals/approve-panel'
import { HealthState } from '@/components/servers/server-badges'
import { ServerAction } from '@/components/servers/server-action'
import { Card, Empty, LinkButton, PageHeader } from '@/components/ui'
import { requireOperator } from '@/lib/dashboard/operator'
import { overview } from '@/lib/dashboard/overview'
import type { ServerRow } from '@/lib/catalog/servers'
import { getDb } from '@/db/client'

export const metadata: Metadata = { title: 'Overview' }

function ServerList({ rows, empty }: { rows: ServerRow[]; empty: string }) {
  if (rows.length === 0) return <Empty>{empty}</Empty>
  return (
    <ul className="divide-y divide-slate-100 dark:divide-slate-800">
      {rows.map((s) => (
        <li key={s.name} className="flex flex-wrap items-center gap-3 py-2">
          <Link href={`/servers/${encodeURIComponent(s.name)}`} className="font-mono text-sm text-sky-700 underline dark:text-sky-300">{s.name}</Link>
          <HealthState s={s} />
          <span className="ml-auto"><ServerAction s={s} /></span>
        </li>
      ))}
    </ul>
  )
}

export default async function OverviewPage() {
  await requireOperator('/')
  const o = overview(getDb())
  const allClear = !o.tools.length && !o.quarantined.length && !o.loginNeeded.length && !o.unhealthy.length
  return (
    <>
      <PageHeader title="What needs an operator now">
        {allClear ? 'Nothing is waiting on you: every known tool is approved and every server is healthy.' : 'Each item has the button that fixes it.'}
      </PageHeader>
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title={`Tools waiting for approval (${o.tools.length})`}>
          {o.tools.length === 0 ? <Empty>No pending or changed tools.</Empty> : (
            <ul className="divide-y divide-slate-100 dark:divide-slate-800">
              {o.tools.map((t) => (
                <li key={t.id} data-testid={`waiting-${t.id}`} className="py-2">
                  <div className="flex flex-wrap items-center gap-3">
                    <span className="font-mono text-sm">{t.id}</span>
                    <span className="text-xs text-slate-500">{t.status === 'tool_changed' ? 'changed since approval' : 'new, never approved'}</span>
                    {t.review.findings.length > 0 && <span className="text-xs text-red-700 dark:text-red-300">{t.review.findings.length} review finding{t.review.findings.length === 1 ? '' : 's'}</span>}
                  </div>
                  <details className="mt-2">
                    <summary className="cursor-pointer text-sm text-sky-700 dark:text-sky-300">{t.status === 'tool_changed' ? 'Review the change, then approve' : 'Review the definition, then approve'}</summary>
                    <div className="mt-2"><ApprovePanel review={t.review} /></div>
                  </details>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title={`Quarantined servers (${o.quarantined.length})`}><ServerList rows={o.quarantined} empty="No server is quarantined." /></Card>
        <Card title={`Logins needed (${o.loginNeeded.length})`}><ServerList rows={o.loginNeeded} empty="No server is waiting for a login." /></Card>
        <Card title={`Unhealthy servers (${o.unhealthy.length})`}><ServerList rows={o.unhealthy} empty="Every enabled server is connected or starting." /></Card>
      </div>
      <Card className="mt-4" title="Recent blocked checks">
        {o.blocked.length === 0 ? <Empty>No check has been blocked recently.</Empty> : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {o.blocked.map((b) => (
              <li key={b.id} className="flex flex-wrap items-center gap-2">
                <ul className="min-w-0 flex-1"><ActivityLine item={b} /></ul>
                <LinkButton href={`/activity/${b.request_id}`}>Why, and fix it</LinkButton>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  )
}
