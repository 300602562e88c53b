import type { Metadata } from 'next'
import Link from 'next/link'
import { Suspense } from 'react'
import { ActionButton } from '@/components/action-button'
import { LazyReview } from '@/components/approvals/lazy-review'
import { HeldCallsCard } from '@/components/approvals/held-calls'
import { HealthState } from '@/components/servers/server-badges'
import { ServerAction } from '@/components/servers/server-action'
import { Card, LinkButton, PageHeader } from '@/components/ui'
import { changeToolsAction } from '@/lib/actions/servers'
import { tokenPage } from '@/lib/dashboard/fixes'
import { pagePrincipal } from '@/lib/dashboard/operator'
import type { OverCeiling } from '@/lib/dashboard/heavy'
import type { AcknowledgedCause, BlockedAgent, Cause, Overview } from '@/lib/dashboard/overview'
import { acknowledgeAction, unacknowledgeAction } from '@/lib/actions/triage'
import { RelativeTime } from '@/components/relative-time'
import { LiveRefresh } from '@/components/live-refresh'
import { loadOverview } from '@/lib/dashboard/pages/overview'
import { FirstRun } from '@/components/onboarding/first-run'

// Overview reads ~20 ms of state at 5,000 tools: every 10 s per open tab costs the gateway nothing it notices
const OVERVIEW_REFRESH_MS = 10_000

export const metadata: Metadata = { title: 'Overview' }

const list = 'divide-y divide-slate-100 dark:divide-slate-800'

function ServerList({ rows }: { rows: Overview['quarantined'] }) {
  return (
    <ul className={list}>
      {rows.map((s) => (
        <li key={s.name} data-testid={`server-item-${s.name}`} className="flex flex-wrap items-center gap-3 py-2">
          <Link href={`/servers/${encodeURIComponent(s.name)}`} className="font-mono text-sm text-sky-700 underline dark:text-sky-300">{s.name}</Link>
          <HealthState s={s} />
          <span className="ml-auto"><ServerAction s={s} facts={s.facts} /></span>
        </li>
      ))}
    </ul>
  )
}

/** One cause an agent's ids are refused for: how many, the cause in words, its fix, and (a deliberate block) acknowledge or snooze. */
function CauseItem({ token, c }: { token: string; c: Cause }) {
  const ack = (span: 'until_changed' | '1h' | '1d', label: string) => (
    <ActionButton action={acknowledgeAction} permission="operate" input={{ key: c.key, fingerprint: c.fingerprint, span }} label={label} name={`${label}: ${c.count} ${c.reason} of ${token}`} />
  )
  return (
    <li data-testid={`cause-${c.key}`} data-reason={c.reason} className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <span>{c.count} id{c.count === 1 ? '' : 's'} <code>{c.reason}</code> — {c.detail}</span>
      <span className="font-mono text-slate-600 dark:text-slate-300">({c.ids.join(', ')}{c.count > c.ids.length ? ', …' : ''})</span>
      {c.fixLink && <LinkButton href={c.fixLink.href} aria-label={`${c.fixLink.label} (${c.count} ${c.reason} of ${token})`}>→ {c.fixLink.label}</LinkButton>}
      {c.deliberate && (
        <span className="ml-auto flex flex-wrap items-center gap-1">
          <span className="text-slate-600 dark:text-slate-300">an operator's choice, not a fault: hide it until it changes (Acknowledge) or for a while (Snooze)</span>
          {ack('until_changed', 'Acknowledge')}{ack('1h', 'Snooze 1 h')}{ack('1d', 'Snooze 1 day')}
        </span>
      )}
    </li>
  )
}

/** One agent token's refused checks, judged again now and grouped by cause, and its calls that failed: only what is still failing. */
function AgentItem({ a }: { a: BlockedAgent }) {
  const fixIt = new URLSearchParams([...a.causes.flatMap((c) => c.ids.map((id) => ['id', id])), ['token', a.token], ['run', '1']])
  return (
    <li data-testid={`agent-${a.token}`} className="space-y-2 py-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <Link href={tokenPage(a.token)} className="font-mono font-medium text-sky-700 underline dark:text-sky-300">{a.token}</Link>
        <span className="text-xs text-slate-600 dark:text-slate-300">
          {[a.checks > 0 && `${a.checks} recent check${a.checks === 1 ? '' : 's'} refused`, a.failingCalls.length > 0 && `${a.failingCalls.length} tool${a.failingCalls.length === 1 ? '' : 's'} whose latest call failed`].filter(Boolean).join(' · ')}
          {' '}· latest <Link className="font-mono underline" href={`/activity/${a.lastRequestId}`}>{a.lastRequestId}</Link>
        </span>
        {a.causes.length > 0
          ? <LinkButton variant="primary" className="ml-auto" href={`/preflight?${fixIt}`} aria-label={`See causes & fix: ${a.token}`}>See causes &amp; fix</LinkButton>
          : <LinkButton className="ml-auto" href={tokenPage(a.token)} aria-label={`See the calls of ${a.token}`}>See its calls</LinkButton>}
      </div>
      <ul className="space-y-1 text-xs">
        {a.causes.map((c) => <CauseItem key={c.key} token={a.token} c={c} />)}
        {a.failingCalls.map((c) => (
          <li key={`call-${c.target}`} data-testid={`agent-${a.token}-call-${c.target}`}>
            <span className="font-mono font-medium">{c.target}</span> call <code>{c.outcome}</code>{c.reason && <> (<code>{c.reason}</code>)</>}
            {c.error && <> — {c.error}</>}{c.failures > 1 && ` · ${c.failures} failed calls`} · <Link className="font-mono underline" href={`/activity/${c.requestId}`}>{c.requestId}</Link>
            <span className="text-slate-600 dark:text-slate-300"> (counts until a call to it succeeds)</span>
          </li>
        ))}
        {a.unjudged && <li data-testid={`agent-${a.token}-more`} className="text-slate-600 dark:text-slate-300">These checks refused more ids than are judged again here: open the latest check for all of them.</li>}
      </ul>
    </li>
  )
}

/** Deliberate blocks an operator acknowledged: out of the way, not out of sight, each with who did it and until when. */
function Acknowledged({ rows }: { rows: AcknowledgedCause[] }) {
  return (
    <details className="mt-2 text-xs" data-testid="acknowledged">
      <summary className="cursor-pointer text-slate-600 dark:text-slate-300">Acknowledged deliberate blocks ({rows.length}): shown again when they change{rows.some((r) => r.until) ? ' or their snooze ends' : ''}</summary>
      <ul className={list}>
        {rows.map((c) => (
          <li key={c.key} data-testid={`acknowledged-${c.key}`} className="flex flex-wrap items-center gap-2 py-1">
            <span className="font-mono">{c.token}</span><span>{c.count} id{c.count === 1 ? '' : 's'} <code>{c.reason}</code></span>
            <span className="text-slate-600 dark:text-slate-300">acknowledged by {c.by}{c.until ? <>, snoozed until <RelativeTime iso={c.until} /></> : ', until it changes'}</span>
            <span className="ml-auto"><ActionButton action={unacknowledgeAction} permission="operate" input={{ key: c.key }} label="Show again" name={`Show again: ${c.count} ${c.reason} of ${c.token}`} /></span>
          </li>
        ))}
      </ul>
    </details>
  )
}

/** A tool's review findings, once the worker counted them (the row is shown without them meanwhile). */
async function FindingCount({ findings, id }: { findings: Promise<Record<string, number>>; id: string }) {
  const n = (await findings)[id] ?? 0
  return n > 0 ? <span className="text-xs text-red-700 dark:text-red-300">{n} review finding{n === 1 ? '' : 's'}</span> : null
}

/**
 * Tools waiting for an operator, each with its review behind its summary (loaded when opened).
 * Only the finding counts stream in: a review opened meanwhile stays open when they land.
 */
function PendingTools({ tools, findings }: { tools: Overview['tools']; findings: Promise<Record<string, number>> }) {
  return (
    <Card title={`Tools waiting for approval (${tools.length})`}>
      <ul className={list}>
        {tools.map((t) => (
          <li key={t.id} data-testid={`waiting-${t.id}`} className="py-2">
            <div className="flex flex-wrap items-center gap-3">
              <span className="font-mono text-sm">{t.id}</span>
              <span className="text-xs text-slate-600 dark:text-slate-300">{t.status === 'tool_changed' ? 'changed since approval' : 'new, never approved'}</span>
              <Suspense fallback={null}><FindingCount findings={findings} id={t.id} /></Suspense>
            </div>
            <LazyReview id={t.id} summary={t.status === 'tool_changed' ? 'Review the change, then approve' : 'Review the definition, then approve'} />
          </li>
        ))}
      </ul>
    </Card>
  )
}

/** Scored in the worker: the page is sent first, this card when its answer lands. */
async function OverCeilingCard({ scored }: { scored: Promise<OverCeiling[]> }) {
  const rows = await scored
  if (!rows.length) return null
  return (
    <Card title={`Scopes over the description-overlap ceiling (${rows.length})`}>
      <ul className={list}>
        {rows.map((c) => (
          <li key={c.key} data-testid={`over-ceiling-${c.key}`} className="flex flex-wrap items-center gap-3 py-2">
            <span className="text-sm">{c.label}</span>
            <span className="text-xs text-slate-600 dark:text-slate-300"><span className="font-mono">{c.a}</span> reads like <span className="font-mono">{c.b}</span>: {c.score.toFixed(2)} &gt; {c.ceiling}</span>
            <LinkButton className="ml-auto" href={`/surface?scope=${encodeURIComponent(c.key)}`} aria-label={`See the surface of ${c.label}`}>See the pair</LinkButton>
          </li>
        ))}
      </ul>
    </Card>
  )
}

export default async function OverviewPage() {
  const me = await pagePrincipal('/')
  if (!me) return null
  const { overview: o, setup, findings, overCeiling } = loadOverview(me.actor)
  const servers = [
    { title: 'Quarantined servers', rows: o.quarantined },
    { title: 'Disabled servers', rows: o.disabled },
    { title: 'Logins needed', rows: o.loginNeeded },
    { title: 'Unhealthy servers', rows: o.unhealthy },
    { title: 'Servers not connected yet', rows: o.connecting },
  ].filter((c) => c.rows.length > 0)
  // the over-ceiling scopes stream in below once scored (off the request loop); a set ceiling is not "clear" before that
  const allClear = !o.agents.length && !o.tools.length && !o.blockedTools.length && !servers.length && !o.danglingPins.length && !overCeiling
  return (
    <>
      <PageHeader title="What needs an operator now">
        {setup ? 'This toolgate is not set up yet: follow the checklist.'
          : allClear ? 'Nothing is waiting on you: no agent is blocked, every known tool is approved and every server is connected.' : 'Read from the current state, again every 10 seconds: an item appears when it needs you and disappears once it is fixed. Each has the button that fixes it.'}
      </PageHeader>
      <LiveRefresh everyMs={OVERVIEW_REFRESH_MS} />
      {setup && <FirstRun steps={setup} />}
      <HeldCallsCard />
      {(o.agents.length > 0 || o.acknowledged.length > 0) && (
        <Card className="mb-4" title={`Agents blocked now (${o.agents.length})`}>
          <p className="mb-1 text-xs text-slate-600 dark:text-slate-300">Recent checks by agent tokens that were refused, judged again now and grouped by cause, and tools whose latest call by the agent failed or was refused (your own dashboard checks are left out).</p>
          <ul className={list}>{o.agents.map((a) => <AgentItem key={a.token} a={a} />)}</ul>
          {o.acknowledged.length > 0 && <Acknowledged rows={o.acknowledged} />}
        </Card>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        {findings && <PendingTools tools={o.tools} findings={findings} />}
        {servers.map((c) => <Card key={c.title} title={`${c.title} (${c.rows.length})`}><ServerList rows={c.rows} /></Card>)}
        {o.blockedTools.length > 0 && (
          <Card title={`Tools blocked by an operator (${o.blockedTools.length})`}>
            <ul className={list}>
              {o.blockedTools.map((t) => (
                <li key={t.id} data-testid={`blocked-${t.id}`} className="flex flex-wrap items-center gap-3 py-2">
                  <span className="font-mono text-sm">{t.id}</span>
                  {t.annotations?.destructiveHint === true && <span className="text-xs text-red-700 dark:text-red-300">annotated destructive</span>}
                  <span className="ml-auto">
                    <ActionButton action={changeToolsAction} permission="approve" input={{ verb: 'enable' as const, ids: [t.id], confirm: true }} label="Unblock" name={`Unblock ${t.id}`}
                      confirm={`Unblock ${t.id}? An operator blocked it on purpose; agents can call it again at once.`} />
                  </span>
                </li>
              ))}
            </ul>
          </Card>
        )}
        {o.danglingPins.length > 0 && (
          <Card title={`Tokens pinned to a missing profile (${o.danglingPins.length})`}>
            <ul className={list}>
              {o.danglingPins.map((t) => (
                <li key={t.name} data-testid={`dangling-${t.name}`} className="flex flex-wrap items-center gap-3 py-2">
                  <Link href={tokenPage(t.name)} className="font-mono text-sm text-sky-700 underline dark:text-sky-300">{t.name}</Link>
                  <span className="text-xs text-slate-600 dark:text-slate-300">pinned to “{t.profilePin}”, which no longer exists: it may use no server</span>
                  <LinkButton className="ml-auto" variant="primary" href={tokenPage(t.name)} aria-label={`Re-pin token ${t.name}`}>Re-pin</LinkButton>
                </li>
              ))}
            </ul>
          </Card>
        )}
        {overCeiling && <Suspense fallback={<Card title="Scopes over the description-overlap ceiling"><p className="text-xs text-slate-600 dark:text-slate-300" data-testid="over-ceiling-pending">Scoring every scope against the ceiling…</p></Card>}><OverCeilingCard scored={overCeiling} /></Suspense>}
      </div>
    </>
  )
}
