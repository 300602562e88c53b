import type { Metadata } from 'next'
import Link from 'next/link'
import { ActionButton } from '../../../../components/action-button'
import { Exposure } from '../../../../components/servers/exposure'
import { AdminState, HealthState } from '../../../../components/servers/server-badges'
import { SettingsForm } from '../../../../components/servers/settings-form'
import { ToolTable } from '../../../../components/servers/tool-table'
import { Card, Empty, PageHeader } from '../../../../components/ui'
import { setServerState } from '../../../../lib/actions/servers'
import { requireOperator } from '../../../../lib/dashboard/operator'
import { releaseExposure } from '../../../../lib/dashboard/row-details'
import { serverDetail } from '../../../../lib/dashboard/servers'
import { serverDb } from '../../../../lib/http/server-db'

export const metadata: Metadata = { title: 'Server' }

export default async function ServerPage({ params }: { params: Promise<{ name: string }> }) {
  const name = decodeURIComponent((await params).name)
  await requireOperator(`/servers/${encodeURIComponent(name)}`)
  const db = serverDb()
  const s = serverDetail(db, name)
  if (!s) {
    return (
      <>
        <PageHeader title={name} />
        <Empty>No server named “{name}” is configured. <Link className="underline" href="/servers">All servers</Link></Empty>
      </>
    )
  }
  const exposure = s.quarantined ? releaseExposure(db, name) : undefined
  const change = (c: 'enable' | 'disable' | 'quarantine' | 'release') => ({ server: name, change: c })
  return (
    <>
      <PageHeader title={name}><Link className="underline" href="/servers">Servers</Link> / <span className="font-mono">{name}</span></PageHeader>
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Admin state">
          <AdminState s={s} />
          <div className="mt-3 flex flex-wrap gap-2">
            {s.enabled
              ? <ActionButton action={setServerState} input={change('disable')} label="Disable" variant="danger" confirm={`Disable ${name}? Its tools stop being served at once.`} />
              : <ActionButton action={setServerState} input={change('enable')} label="Enable" variant="primary" />}
            {!s.quarantined && <ActionButton action={setServerState} input={change('quarantine')} label="Quarantine" variant="danger" confirm={`Quarantine ${name}? All its tools are withheld until it is reviewed.`} />}
          </div>
        </Card>
        <Card title={<span id="connection">Connection health</span>}>
          <HealthState s={s} />
          {s.connection?.action && <p className="mt-2 text-sm">The runtime suggests: <code>{s.connection.action}</code></p>}
        </Card>
      </div>
      {exposure?.kind === 'exposure' && (
        <Card className="mt-4" title={<span id="release">Quarantined: review before releasing</span>}>
          <Exposure detail={exposure} />
          <div className="mt-3"><ActionButton action={setServerState} input={change('release')} label={`Release ${name}`} variant="primary" /></div>
        </Card>
      )}
      <Card className="mt-4" title={`Tools (${s.tools.total})`}><ToolTable tools={s.toolList} /></Card>
      <Card className="mt-4" title={<span id="settings">Settings</span>}><SettingsForm server={name} settings={s.settings} /></Card>
    </>
  )
}
