import type { Metadata } from 'next'
import { ProxySettingsForm } from '@/components/settings/settings-form'
import { Card, PageHeader } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { loadSettings } from '@/lib/dashboard/pages/settings'

export const metadata: Metadata = { title: 'Settings' }

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC'
const size = (bytes: number) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`)

export default async function SettingsPage() {
  if (!(await canViewPage('/settings'))) return null
  const { settings, profiles, storage, sessions } = loadSettings()
  return (
    <>
      <PageHeader title="Settings">Proxy-wide switches, who is signed in, and what the activity log keeps.</PageHeader>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card title="Proxy">
          <ProxySettingsForm settings={settings} profiles={profiles} />
        </Card>
        <div className="space-y-6">
          <Card title="Activity log">
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-slate-600 dark:text-slate-400">Oldest record kept</dt><dd>{storage.oldestAt === null ? 'none yet' : when(storage.oldestAt)}</dd>
              <dt className="text-slate-600 dark:text-slate-400">Records</dt><dd>{storage.records.toLocaleString('en')}</dd>
              <dt className="text-slate-600 dark:text-slate-400">Database size</dt><dd>{size(storage.dbBytes)} (+ {size(storage.walBytes)} write-ahead log)</dd>
              <dt className="text-slate-600 dark:text-slate-400">Retention</dt><dd>{settings.activity_retention_days === null ? 'keeps everything' : `${settings.activity_retention_days} days, pruned daily`}</dd>
            </dl>
          </Card>
          <Card title="Signed-in sessions">
            <ul className="space-y-2 text-sm" aria-label="Signed-in sessions">
              {sessions.map((s) => (
                <li key={s.id} className="rounded border border-slate-200 px-3 py-2 dark:border-slate-800">
                  <div>Operator since {when(s.createdAt)} · last active {when(s.lastSeenAt)}</div>
                  <div className="break-words text-xs text-slate-600 dark:text-slate-400">{s.userAgent ?? 'unknown browser'}{s.address ? ` · from ${s.address}` : ''} · ends by {when(s.expiresAt)}</div>
                </li>
              ))}
            </ul>
          </Card>
        </div>
      </div>
    </>
  )
}
