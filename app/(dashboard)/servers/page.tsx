import type { Metadata } from 'next'
import Link from 'next/link'
import { AdminState, HealthState } from '@/components/servers/server-badges'
import { ServerAction } from '@/components/servers/server-action'
import { Card, Empty, PageHeader, WideTable } from '@/components/ui'
import { canViewPage } from '@/lib/dashboard/operator'
import { serverRows } from '@/lib/catalog/servers'
import { withFacts } from '@/lib/dashboard/server-facts'
import { getDb } from '@/db/client'

export const metadata: Metadata = { title: 'Servers' }

export default async function ServersPage() {
  if (!(await canViewPage('/servers'))) return null
  const db = getDb()
  const rows = withFacts(db, serverRows(db))
  return (
    <>
      <PageHeader title="Servers">Admin state (what you set) is shown apart from connection health (what the runtime sees).</PageHeader>
      <Card>
        {rows.length === 0 ? <Empty>No servers are configured. Add one with <code>toolgate upstream add</code> or load a state file.</Empty> : (
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
                      {s.tools.callable}/{s.tools.total} callable
                      {s.tools.pending > 0 && <>, {s.tools.pending} pending</>}{s.tools.changed > 0 && <>, {s.tools.changed} changed</>}{s.tools.blocked > 0 && <>, {s.tools.blocked} blocked</>}
                    </td>
                    <td className="py-2"><ServerAction s={s} facts={s.facts} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
        )}
      </Card>
    </>
  )
}
