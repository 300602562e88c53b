import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { ActivityLine } from '@/components/activity/activity-item'
import { TokenRow } from '@/components/access/tokens-panel'
import { ToolId } from '@/components/tool-id'
import { Card, Empty, LinkButton, PageHeader, Pill } from '@/components/ui'
import { pagePrincipal } from '@/lib/dashboard/operator'
import { loadToken } from '@/lib/dashboard/pages/tokens'
import { causeGroups, type AgentExperience, type CauseGroup, type TokenDetail } from '@/lib/dashboard/token'
import { tokenPage } from '@/lib/dashboard/fixes'
import { listQuery, pageOf } from '@/lib/dashboard/lists'
import { searchValue, type SearchParams } from '@/lib/dashboard/search-params'
import { Pager } from '@/components/pager'
import type { Narrowing } from '@/lib/preflight/evaluate'
import { MAX_DASHBOARD_IDS } from '@/lib/schemas/dashboard'

export const metadata: Metadata = { title: 'Agent token' }

function why(n: Narrowing): string {
  switch (n.by) {
    case 'allowed_servers': return 'not among its allowed servers'
    case 'token_profile': return n.exists ? `outside its pinned profile “${n.profile}”` : `its pinned profile “${n.profile}” no longer exists`
    case 'profile': return `outside profile “${n.profile}”`
  }
}

const counts = (c: Partial<Record<string, number>>) => Object.entries(c).map(([k, n]) => `${n} ${k}`).join(', ')

/** Per tool, its checks and its calls joined: what the agent actually met, failing first. */
function Experience({ e, token }: { e: AgentExperience; token: string }) {
  if (!e.tools.length) return <Empty>No check or call by this token is on the activity log yet.</Empty>
  return (
    <>
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-300" data-testid="experience-totals">
        {e.checks} check{e.checks === 1 ? '' : 's'} ({e.refusedChecks} refused) · calls: {counts(e.calls) || 'none'}. A tool is fixed once a call to it succeeds, not when a check says ready.
      </p>
      <table className="w-full text-sm max-md:block" aria-label={`What ${token} experienced, per tool`}>
        <thead className="text-left text-xs text-slate-600 max-md:hidden dark:text-slate-300">
          <tr><th scope="col" className="pb-2 pr-3">Tool</th><th scope="col" className="pb-2 pr-3">Checks</th><th scope="col" className="pb-2 pr-3">Calls</th><th scope="col" className="pb-2">Latest call</th></tr>
        </thead>
        <tbody className="max-md:block">
          {e.tools.map((t) => (
            <tr key={t.id} data-testid={`experience-${t.id}`} data-latest={t.last?.outcome ?? 'none'} className="border-t border-slate-200 align-top max-md:block max-md:py-2 dark:border-slate-800">
              <th scope="row" className="py-2 pr-3 text-left font-mono text-xs font-medium max-md:block"><ToolId id={t.id} /></th>
              <td className="py-2 pr-3 text-xs max-md:block">{t.checks.ready} ready, {t.checks.refused} refused</td>
              <td className="py-2 pr-3 text-xs max-md:block">{counts(t.calls) || 'never called'}</td>
              <td className="py-2 text-xs max-md:block">
                {t.last === null ? <span className="text-slate-600 dark:text-slate-300">—</span> : (
                  <>
                    <Pill tone={t.last.outcome === 'ok' ? 'good' : t.last.outcome === 'held' || t.last.outcome === 'running' ? 'warn' : 'bad'}>{t.last.outcome}</Pill>
                    {t.last.reason && <> <code>{t.last.reason}</code></>}
                    {t.last.duration_ms !== undefined && <> in {t.last.duration_ms} ms</>}
                    {t.fixed && <> · <span className="text-emerald-700 dark:text-emerald-300">fixed: it failed before, this call succeeded</span></>}
                    {t.last.error && <span className="block text-slate-700 dark:text-slate-200">{t.last.error}</span>}
                    <Link className="block font-mono underline" href={`/activity/${t.last.request_id}`}>{t.last.request_id}</Link>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}

/** How many ids a closed cause lists: the rest are a click (and a page) away. */
const PREVIEW = 5
const causeAnchor = (key: string) => `cause-${key.replace(/[^A-Za-z0-9_-]+/g, '-')}`

function FixCell({ fix, id, token }: { fix: CauseGroup['fix'] | TokenDetail['blocked'][number]['fix']; id?: string; token: string }) {
  return fix?.kind === 'link' ? <LinkButton href={fix.href} aria-label={`${fix.label}${id ? ` (for ${id})` : ''}`}>{fix.label}</LinkButton>
    : fix?.kind === 'advice' ? <p className="max-w-sm">{fix.text}</p>
    : fix && id ? <LinkButton href={`/preflight?${new URLSearchParams([['id', id], ['token', token], ['run', '1']])}`} aria-label={`Fix in Preflight: ${id}`}>Fix in Preflight</LinkButton>
    : fix ? <LinkButton href={`/preflight?${new URLSearchParams([['token', token]])}`}>{'label' in fix ? fix.label : 'Fix in Preflight'}</LinkButton>
    : null
}

/** One cause: how many ids it blocks, its one fix, and its ids (a few, or all of them paged when opened). */
function Cause({ group: g, token, open, page }: { group: CauseGroup; token: string; open: boolean; page: number }) {
  const path = tokenPage(token)
  const anchor = `#${causeAnchor(g.key)}`
  const shown = open ? pageOf(g.entries, page) : { ...pageOf(g.entries, 1, PREVIEW) }
  const first = g.entries[0].result
  return (
    <section id={causeAnchor(g.key)} data-testid={`cause-${g.key}`} data-count={g.entries.length} aria-label={`${g.entries.length} ids: ${g.reason}`} className="scroll-mt-4 rounded border border-slate-200 p-3 dark:border-slate-800">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-sm font-medium">{g.entries.length.toLocaleString('en')} id{g.entries.length === 1 ? '' : 's'}: <Pill tone={first.status === 'unavailable' && first.retryable ? 'warn' : 'bad'}>{g.reason}</Pill></h3>
        {g.fix && <span className="ml-auto text-xs"><FixCell fix={g.fix} token={token} /></span>}
      </div>
      {first.status === 'unavailable' && <p className="mt-1 text-xs text-slate-700 dark:text-slate-200">For example <span className="font-mono">{first.id}</span>: {first.detail}</p>}
      <table className="mt-2 w-full text-sm max-md:block" aria-label={`Tools ${token} cannot use: ${g.reason}`}>
        <tbody className="max-md:block">
          {shown.items.map(({ result: r, fix }) => r.status === 'unavailable' && (
            <tr key={r.id} data-testid={`blocked-${r.id}`} data-reason={r.reason} className="border-t border-slate-200 align-top max-md:block max-md:py-2 dark:border-slate-800">
              <th scope="row" className="py-1.5 pr-3 text-left font-mono text-xs font-medium max-md:block md:whitespace-nowrap"><ToolId id={r.id} /></th>
              <td className="py-1.5 pr-3 text-xs max-md:block">{r.detail}</td>
              {!g.fix && <td className="py-1.5 text-xs max-md:block"><FixCell fix={fix} id={r.id} token={token} />{!fix && r.remediation}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {open ? <Pager paged={shown} path={path} params={new URLSearchParams([['cause', g.key]])} anchor={anchor} noun="ids" />
        : g.entries.length > PREVIEW && <Link className="mt-2 inline-block text-xs text-sky-700 underline dark:text-sky-300" href={`${path}?${new URLSearchParams([['cause', g.key]])}${anchor}`}>Show all {g.entries.length.toLocaleString('en')} →</Link>}
    </section>
  )
}

/** `/tokens/<name>`: one agent token — its scope, the tools it cannot use and why, its recent checks and calls. */
export default async function TokenPage({ params, searchParams }: { params: Promise<{ name: string }>; searchParams: Promise<SearchParams> }) {
  const name = decodeURIComponent((await params).name)
  const sp = await searchParams
  const openCause = searchValue(sp.cause)
  const page = listQuery(sp, ['all'], ['id']).page
  const me = await pagePrincipal(`/tokens/${encodeURIComponent(name)}`)
  if (!me) return null
  const loaded = loadToken(name, me.actor)
  // no such token: not-found.tsx names it
  if (!loaded) notFound()
  const { token: t, access } = loaded
  const row = access.tokens.find((x) => x.name === t.token.name)
  const reach = t.servers.filter((s) => s.excludedBy === null)
  const checkBlocked = new URLSearchParams([...t.blocked.slice(0, MAX_DASHBOARD_IDS).map((e) => ['id', e.result.id]), ['token', t.token.name], ['run', '1']])
  return (
    <>
      <PageHeader title={`Agent token ${t.token.name}`}>
        <Link className="underline" href="/tokens">Tokens &amp; profiles</Link> / <span className="font-mono">{t.token.name}</span> · created {t.token.createdAt.slice(0, 10)}
      </PageHeader>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card title="Scope">
          <p className="text-sm">Allowed servers: <span className="font-mono">{t.token.allowedServers.length ? t.token.allowedServers.join(', ') : 'none'}</span> · profile pin: <span className="font-mono">{t.token.profilePin ?? 'none'}</span></p>
          <p className="mt-2 text-sm" data-testid="token-reach">
            That yields {reach.length} of {t.servers.length} servers: <span className="font-mono">{reach.map((s) => s.server).join(', ') || 'none'}</span>
          </p>
          {t.servers.some((s) => s.excludedBy) && (
            <ul className="mt-2 space-y-0.5 text-xs text-slate-700 dark:text-slate-300" aria-label="Servers outside its scope">
              {t.servers.filter((s) => s.excludedBy).map((s) => <li key={s.server}><span className="font-mono">{s.server}</span>: {why(s.excludedBy!)}</li>)}
            </ul>
          )}
          {row && <ul className="mt-3 border-t border-slate-200 dark:border-slate-800"><TokenRow token={row} data={access} /></ul>}
        </Card>
        <Card title={`Recent checks and calls (${t.recent.length})`}>
          {t.recent.length === 0 ? <Empty>No check or call by this token is on the activity log.</Empty> : (
            <ol className="divide-y divide-slate-100 dark:divide-slate-800">{t.recent.map((it) => <ActivityLine key={it.id} item={it} />)}</ol>
          )}
        </Card>
      </div>
      <Card className="mt-4" title={`What it experienced: its checks and calls, per tool (${t.experience.tools.length})`}>
        <Experience e={t.experience} token={t.token.name} />
      </Card>
      <Card className="mt-4" title={`Tools it cannot use now (${t.blocked.length} of ${t.blocked.length + t.usable}), by cause`}>
        {t.blocked.length === 0 ? <Empty>Every known tool is ready for this token.</Empty> : (
          <>
            <p className="mb-3 text-xs text-slate-600 dark:text-slate-300">
              The operator-tier cause of each (an agent with this token is told <code>not_found</code> for a server outside its scope).{' '}
              <Link className="text-sky-700 underline dark:text-sky-300" href={`/preflight?${checkBlocked}`}>Check them all in Preflight as this token, with their fixes →</Link>
            </p>
            <div role="region" aria-label={`Tools ${t.token.name} cannot use`} className="space-y-4">
              {causeGroups(t.blocked).map((g) => <Cause key={g.key} group={g} token={t.token.name} open={openCause === g.key} page={page} />)}
            </div>
          </>
        )}
      </Card>
    </>
  )
}
