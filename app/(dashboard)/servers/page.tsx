import type { Metadata } from 'next'
import Link from 'next/link'
import { AdminState, callsWhile, HealthState } from '@/components/servers/server-badges'
import { ServerAction } from '@/components/servers/server-action'
import { FollowConnection } from '@/components/servers/follow-connection'
import { Card, Empty, PageHeader, WideTable } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { querySearch } from '@/lib/dashboard/lists'
import { loadServers, SHOWS, SORTS } from '@/lib/dashboard/pages/servers'
import type { SearchParams } from '@/lib/dashboard/search-params'
import { ListControls } from '@/components/list-controls'
import { Pager } from '@/components/pager'

export const metadata: Metadata = { title: 'Servers' }

const showLabels: Record<(typeof SHOWS)[number], string> = {
  all: 'every server', attention: 'needing attention', quarantined: 'quarantined', disabled: 'disabled', pending: 'with tools to review', unhealthy: 'not connected',
}
const sortLabels: Record<(typeof SORTS)[number], string> = { name: 'name', attention: 'most to do first', tools: 'most tools first' }

export default async function ServersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  if (!(await canViewPage('/servers'))) return null
  const { any, query, shown, rows } = loadServers(await searchParams)
  return (
    <>
      <PageHeader title="Servers">Admin state (what you set) is shown apart from connection health (what the runtime sees).</PageHeader>
      <Card>
        {rows.some((s) => s.restartPending) && <FollowConnection />}
        {any && <ListControls label="Find servers" path="/servers" values={query}
          shows={SHOWS.map((v) => ({ value: v, label: showLabels[v] }))} sorts={SORTS.map((v) => ({ value: v, label: sortLabels[v] }))} />}
        {!any ? <Empty>No servers are configured. <Link className="underline" href="/setup">Add one</Link>, run <code>toolgate upstream add</code> or load a state file.</Empty>
          : rows.length === 0 ? <Empty>No server matches: <Link className="underline" href="/servers">show every server</Link>.</Empty> : (
          <WideTable label="Servers table">
            <table className="w-full min-w-[44rem] text-sm" aria-label="Servers">
              <thead className="text-left text-xs text-slate-500 dark:text-slate-400">
                <tr><th scope="col" className="pb-2">Server</th><th scope="col">Admin state</th><th scope="col">Connection</th><th scope="col">Tools</th><th scope="col">Action</th></tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.name} data-testid={`server-${s.name}`} className="border-t border-slate-200 align-top dark:border-slate-800">
                    <th scope="row" className="py-2 pr-3 text-left"><Link className="font-mono text-sky-700 underline dark:text-sky-300" href={`/servers/${encodeURIComponent(s.name)}`}>{s.name}</Link></th>
                    <td className="py-2 pr-3"><AdminState s={s} /></td>
                    <td className="py-2 pr-3"><HealthState s={s} /></td>
                    <td className="py-2 pr-3 text-xs">
                      {s.tools.callable}/{s.tools.total} served
                      {s.tools.callable > 0 && s.enabled && !s.quarantined && callsWhile[s.health] && <> ({callsWhile[s.health]})</>}
                      {s.tools.pending > 0 && <>, {s.tools.pending} pending</>}{s.tools.changed > 0 && <>, {s.tools.changed} changed</>}{s.tools.blocked > 0 && <>, {s.tools.blocked} blocked</>}
                    </td>
                    <td className="py-2"><ServerAction s={s} facts={s.facts} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
        )}
        {any && <Pager paged={shown} path="/servers" params={querySearch(query, { show: SHOWS[0], sort: SORTS[0] })} noun="servers" />}
      </Card>
    </>
  )
}
