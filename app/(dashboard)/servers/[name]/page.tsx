import type { Metadata } from 'next'
import Link from 'next/link'
import { ActionButton } from '@/components/action-button'
import { Exposure } from '@/components/servers/exposure'
import { shownPins } from '@/lib/dashboard/exposure'
import { AdminState, HealthState } from '@/components/servers/server-badges'
import { SettingsForm } from '@/components/servers/settings-form'
import { ToolTable } from '@/components/servers/tool-table'
import { Card, Empty, PageHeader } from '@/components/ui'
import { LoginButton } from '@/components/servers/login-button'
import { FollowConnection } from '@/components/servers/follow-connection'
import { Pending } from '@/components/servers/server-action'
import { SecretForm } from '@/components/servers/secret-form'
import { inspectAction, releaseAction, setServerState } from '@/lib/actions/servers'
import { DefinitionsCard } from '@/components/approvals/definitions-card'
import { restartAction } from '@/lib/actions/upstream'
import { canViewPage } from '@/lib/dashboard/operator'
import { canLogin, canRestart, connectionAdvice, inspectionFix, type ServerFacts } from '@/lib/dashboard/fixes'
import { DecidedBy } from '@/components/decided-by'
import { RelativeTime } from '@/components/relative-time'
import { querySearch } from '@/lib/dashboard/lists'
import { loadServer, TOOL_SHOWS, TOOL_SORTS } from '@/lib/dashboard/pages/servers'
import { revisionText, type ServerRow } from '@/lib/catalog/servers'
import type { SearchParams } from '@/lib/dashboard/search-params'
import { ListControls } from '@/components/list-controls'
import { Pager } from '@/components/pager'

export const metadata: Metadata = { title: 'Server' }

/** Which isolation runs, and why, in words. */
function isolationNote(transport: string, i: { setting: string; runs: 'shared' | 'per_token' | null; sessionState: boolean | null }): string {
  const http = transport.startsWith('http')
  const why = i.setting !== 'auto' ? 'as set' : http ? 'auto: an HTTP server' : i.sessionState ? 'auto: the server keeps session state' : i.sessionState === null ? 'auto: not yet known whether it keeps session state' : 'auto: the server declares no session state'
  return i.runs === 'per_token'
    ? `Runs ${http ? 'one upstream session' : 'one process'} per agent token (started on first use, stopped when idle): no agent sees another's session (${why}).`
    : `Runs one ${http ? 'upstream session' : 'process'} shared by every agent (${why}).`
}

/** Which MCP revision the runtime speaks to it, in words: for an HTTP server, the one its ready connection negotiated. */
function protocolNote(s: ServerRow): string {
  const fixedBy = s.protocolFixedBy
  if (!fixedBy) return `MCP revision: ${revisionText(s)} — 2026-07-28 when the server offers it (server/discover), else 2025-11-25; each connection keeps the revision it negotiated.`
  return `MCP revision: 2025-11-25, always: ${fixedBy === 'sse' ? 'HTTP+SSE is a 2025-era transport' : 'a stdio server is not probed for 2026-07-28 (the probe would start a second copy of it)'}.`
}

/** The last inspection failed: when, why in the server's own words, and what to do about it. */
function InspectionFailed({ server, failed, facts, missingSecrets }: { server: string; failed: { at: number; error: string }; facts: ServerFacts; missingSecrets: string[] }) {
  const fix = inspectionFix(server, failed.error, facts, missingSecrets)
  return (
    <div role="alert" data-testid="inspection-failed" className="mb-2 rounded border border-red-300 bg-red-50 px-2 py-1 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
      <p>The inspection failed <RelativeTime iso={new Date(failed.at).toISOString()} />: <code className="break-all">{failed.error}</code></p>
      <p className="mt-1" data-testid="inspection-fix">{fix.text} <a className="underline" href={fix.href}>{fix.label}</a></p>
    </div>
  )
}

const toolShowLabels: Record<(typeof TOOL_SHOWS)[number], string> = { all: 'every tool', review: 'to review (pending or changed)', blocked: 'blocked', served: 'served', withheld: 'not served' }

export default async function ServerPage({ params, searchParams }: { params: Promise<{ name: string }>; searchParams: Promise<SearchParams> }) {
  const name = decodeURIComponent((await params).name)
  if (!(await canViewPage(`/servers/${encodeURIComponent(name)}`))) return null
  const loaded = await loadServer(name, await searchParams)
  if (!loaded) {
    return (
      <>
        <PageHeader title={name} />
        <Empty>No server named “{name}” is configured. <Link className="underline" href="/servers">All servers</Link></Empty>
      </>
    )
  }
  const { server: s, exposure, overCeiling, toolQuery, tools, reviews, definitions, facts, loggedIn, logs, released, releaseFirst, toolFirst } = loaded
  const shownDefinitions = Object.fromEntries(definitions.map((r) => [r.id, r.pin]))
  const change = (c: 'enable' | 'disable' | 'quarantine') => ({ server: name, change: c })
  return (
    <>
      <PageHeader title={name}><Link className="underline" href="/servers">Servers</Link> / <span className="font-mono">{name}</span></PageHeader>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card title="Admin state">
          <AdminState s={s} />
          {released && !s.quarantined && <p className="mt-1 text-xs text-slate-600 dark:text-slate-300"><DecidedBy verb="Released" by={released.actor} at={new Date(released.at).toISOString()} /></p>}
          <div className="mt-3 flex flex-wrap gap-2">
            {s.enabled
              ? <ActionButton action={setServerState} permission="operate" input={change('disable')} label="Disable" variant="danger" confirm={`Disable ${name}? Its tools stop being served at once.`} />
              : <ActionButton action={setServerState} permission="operate" input={change('enable')} label="Enable" variant="primary" />}
            {!s.quarantined && <ActionButton action={setServerState} permission="operate" input={change('quarantine')} label="Quarantine" variant="danger" confirm={`Quarantine ${name}? All its tools are withheld until it is reviewed.`} />}
          </div>
        </Card>
        <Card title={<span id="connection">Connection health</span>}>
          {s.transport && s.enabled && !s.quarantined && (s.health !== 'ready' || s.restartPending) && <FollowConnection />}
          <HealthState s={s} />
          {s.connectionAt !== null && <p className="mt-1 text-xs text-slate-600 dark:text-slate-300" data-testid="connection-reported" data-at={s.connectionAt}>Reported <RelativeTime iso={new Date(s.connectionAt).toISOString()} /></p>}
          {s.restartPending && <div className="mt-2"><Pending text="Reconnecting… the restart is asked for; this card updates when the runtime reports the new connection." /></div>}
          <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">Transport: {s.transport ? <code>{s.transport}</code> : 'none (state comes from a state file; the runtime does not manage this server)'}</p>
          {s.protocol && <p className="mt-1 text-xs text-slate-600 dark:text-slate-400" data-testid="protocol">{protocolNote(s)}</p>}
          {s.isolation.runs && <p className="mt-1 text-sm">{isolationNote(s.transport!, s.isolation)}</p>}
          {s.connection?.action && <p className="mt-1 text-sm">The runtime suggests: <code>{s.connection.action}</code></p>}
          {canRestart(facts) && (
            <div className="mt-3 flex flex-wrap gap-2">
              {!s.restartPending && <ActionButton action={restartAction} permission="operate" input={{ server: name }} label="Restart" variant={s.connection?.action === 'restart' ? 'primary' : 'secondary'} />}
              {/* a login is offered where it can help: a server asking for one, or one logged in to before */}
              {canLogin(facts) && (s.health === 'login_needed' || loggedIn) && <LoginButton server={name} label={s.health === 'login_needed' ? 'Log in' : 'Log in again'} />}
            </div>
          )}
          {(!canRestart(facts) || (s.health === 'login_needed' && !canLogin(facts))) && <p className="mt-3 text-sm">{connectionAdvice(name, facts)}</p>}
        </Card>
      </div>
      {exposure && (
        <Card className="mt-4" title={<span id="release">Quarantined: inspect, review, then release</span>}>
          {/* the order an operator takes: list what it offers, read every definition, and only then serve it */}
          {releaseFirst && <p role="status" className="mb-2 text-sm">1 of 2: <DecidedBy verb="release approved" by={releaseFirst.by} at={releaseFirst.at} />; another approver must release it too (two-person rule).</p>}
          <ol className="space-y-4">
            <li>
              <h3 className="text-sm font-medium">1. Inspect</h3>
              {s.inspectPending ? (
                <>
                  <FollowConnection />
                  <Pending text="Inspecting… the runtime is listing its tools; they appear under step 2 when it has. If it takes long, its log below says why." />
                </>
              ) : s.transport ? (
                <>
                  {s.inspectFailed && <InspectionFailed server={name} failed={s.inspectFailed} facts={facts} missingSecrets={s.missingSecrets} />}
                  <p className="text-xs text-slate-600 dark:text-slate-400">{exposure.inspectedAt === null ? 'Lists its tools and stores their definitions for review; nothing is served or called.' : 'Lists its tools again, in case they changed since.'}</p>
                  <div className="mt-2">
                    <ActionButton action={inspectAction} permission="operate" input={{ server: name }} label={exposure.inspectedAt === null && !s.inspectFailed ? 'Inspect (list its tools)' : 'Inspect again'} variant={exposure.inspectedAt === null ? 'primary' : 'secondary'}
                      confirm={s.transport.startsWith('http') ? undefined : `Inspect ${name}? This starts its process (${s.transport}) to list its tools; nothing is served or called.`} />
                  </div>
                </>
              ) : <p className="text-xs text-slate-600 dark:text-slate-400">Nothing to inspect: it has no transport, its tools come from a state file.</p>}
            </li>
            <li>
              <h3 className="text-sm font-medium">2. Review every definition</h3>
              <Exposure detail={exposure} />
              {definitions.length > 0 && <p className="mt-2 text-sm">It also approves, as shown under <a className="underline" href="#definitions">Instructions, prompts and resources</a>, the {definitions.filter((d) => d.status === 'undecided').length} of them listed by the inspection; one approved before and changed since stays changed.</p>}
            </li>
            <li>
              <h3 className="text-sm font-medium">3. Release</h3>
              {overCeiling.length > 0 && (
                <p role="alert" className="mt-2 rounded border border-red-300 bg-red-50 px-2 py-1 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
                  Over the description-overlap ceiling: {overCeiling.join('; ')}. Releasing asks you to confirm.
                </p>
              )}
              <div className="mt-2">
                <ActionButton action={releaseAction} permission="approve" input={{ server: name, shown: shownPins(exposure), shownDefinitions, ...(overCeiling.length ? { confirm: true } : {}) }}
                  label={overCeiling.length ? `Release ${name} anyway (over the overlap ceiling)` : `Release ${name}`} variant={exposure.inspectedAt === null && s.transport ? 'secondary' : 'primary'} />
              </div>
            </li>
          </ol>
        </Card>
      )}
      <Card className="mt-4" title={<span id="tools">Tools ({s.tools.total})</span>}>
        {s.tools.total > 0 && <ListControls label="Find tools" path={`/servers/${encodeURIComponent(name)}`} anchor="#tools" values={toolQuery}
          shows={TOOL_SHOWS.map((v) => ({ value: v, label: toolShowLabels[v] }))} sorts={TOOL_SORTS.map((v) => ({ value: v, label: v }))} />}
        {s.tools.total > 0 && tools.total === 0 ? <Empty>No tool matches: <Link className="underline" href={`/servers/${encodeURIComponent(name)}#tools`}>show every tool</Link>.</Empty>
          : <ToolTable tools={tools.items} reviews={reviews} callApproval={s.callApprovalTools} quarantined={s.quarantined} firstOfTwo={toolFirst} />}
        {tools.pages > 1 && <Pager paged={tools} path={`/servers/${encodeURIComponent(name)}`} anchor="#tools" params={querySearch(toolQuery, { show: TOOL_SHOWS[0], sort: TOOL_SORTS[0] })} noun="tools" />}
      </Card>
      <Card className="mt-4" title={<span id="definitions">Instructions, prompts and resources ({definitions.length})</span>}><DefinitionsCard reviews={definitions} /></Card>
      <Card className="mt-4" title={<span id="settings">Settings</span>}><SettingsForm server={name} settings={s.settings} /></Card>
      <div className="mt-4 grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card title={<span id="logs">Recent log lines</span>}>
          {logs.length === 0 ? <Empty>No log lines yet{s.transport ? '' : ': the runtime does not manage this server'}.</Empty> : (
            <pre tabIndex={0} aria-label={`${name} log`} className="max-h-80 overflow-auto rounded bg-slate-950 p-3 text-xs text-slate-100">
              {logs.map((l) => `${new Date(l.at).toISOString()} ${l.stream === 'event' ? '·' : '!'} ${l.line}`).join('\n')}
            </pre>
          )}
        </Card>
        <Card title={<span id="secrets">Secrets</span>}>
          {s.transport ? <SecretForm server={name} missing={s.missingSecrets} /> : <Empty>Secrets are for servers the runtime starts; this one has no transport.</Empty>}
        </Card>
      </div>
    </>
  )
}
