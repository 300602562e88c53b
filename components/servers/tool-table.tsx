'use client'

import { useState, useTransition } from 'react'
import { changeToolsAction } from '@/lib/actions/servers'
import type { InventoryTool } from '@/lib/catalog/inventory'
import { CopyButton } from '@/components/copy-button'
import { ErrorNote } from '@/components/error-note'
import { Button, Empty, Pill } from '@/components/ui'

const statusTone = (s: string) => (s === 'callable' ? 'good' : s === 'tool_pending_approval' || s === 'tool_changed' ? 'warn' : 'bad')
const verbLabels = { approve: 'Approve', block: 'Block', enable: 'Unblock' } as const

/** A server's tools with their approval state, annotations and pins; select some and approve/block them together. */
export function ToolTable({ tools }: { tools: InventoryTool[] }) {
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const [pending, start] = useTransition()
  const run = (verb: keyof typeof verbLabels, ids: string[]) => start(async () => {
    const r = await changeToolsAction({ verb, ids })
    setFailure(r.ok ? null : r)
    if (r.ok) setSelected(new Set())
  })
  if (tools.length === 0) return <Empty>This server has not reported any tools yet.</Empty>
  const all = selected.size === tools.length
  return (
    <div>
      <div role="toolbar" aria-label="Bulk actions" className="mb-2 flex flex-wrap items-center gap-2">
        <span className="text-sm text-slate-600 dark:text-slate-400">{selected.size} selected</span>
        {(Object.keys(verbLabels) as (keyof typeof verbLabels)[]).map((v) => (
          <Button key={v} variant={v === 'block' ? 'danger' : 'secondary'} disabled={pending || selected.size === 0} onClick={() => run(v, [...selected])}>
            {verbLabels[v]} selected
          </Button>
        ))}
      </div>
      {failure && <div className="mb-2"><ErrorNote error={failure.error} fix={failure.fix} /></div>}
      <div className="overflow-x-auto">
        <table className="w-full min-w-[48rem] text-sm" aria-label="Tools">
          <thead className="text-left text-xs text-slate-500 dark:text-slate-400">
            <tr>
              <th scope="col" className="w-8 pb-2"><input type="checkbox" aria-label="Select all tools" checked={all} onChange={() => setSelected(all ? new Set() : new Set(tools.map((t) => t.id)))} /></th>
              <th scope="col">Tool</th><th scope="col">Status</th><th scope="col">Annotations</th><th scope="col">Pin</th><th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((t) => (
              <tr key={t.id} data-testid={`tool-${t.id}`} data-status={t.status} className="border-t border-slate-200 align-top dark:border-slate-800">
                <td className="py-2"><input type="checkbox" aria-label={`Select ${t.name}`} checked={selected.has(t.id)}
                  onChange={(e) => { const next = new Set(selected); if (e.target.checked) next.add(t.id); else next.delete(t.id); setSelected(next) }} /></td>
                <th scope="row" className="py-2 pr-3 text-left font-normal">
                  <span className="font-mono text-xs font-medium">{t.name}</span>
                  {t.description && <p className="text-xs text-slate-600 dark:text-slate-400">{t.description}</p>}
                </th>
                <td className="py-2 pr-3">
                  <span className="flex flex-col items-start gap-1">
                    <Pill tone={statusTone(t.status)}>{t.status === 'callable' ? 'served' : t.status}</Pill>
                    <span className="text-xs text-slate-500">approval: {t.approval}{t.blocked ? ', blocked' : ''}</span>
                  </span>
                </td>
                <td className="py-2 pr-3 text-xs">{t.annotations ? Object.entries(t.annotations).map(([k, v]) => <div key={k}><code>{k}</code>: {String(v)}</div>) : <span className="text-slate-500">none declared</span>}</td>
                <td className="py-2 pr-3">
                  {t.pin ? <span className="flex items-start gap-1"><code className="max-w-56 break-all text-[11px]">{t.pin}</code><CopyButton text={t.pin} label="Copy pin" /></span> : <span className="text-xs text-slate-500">no hash</span>}
                </td>
                <td className="py-2">
                  {t.blocked ? <Button disabled={pending} onClick={() => run('enable', [t.id])}>Unblock</Button>
                    : t.approval === 'pending' || t.approval === 'changed' ? <Button variant="primary" disabled={pending} onClick={() => run('approve', [t.id])}>Approve</Button>
                    : <Button variant="danger" disabled={pending} onClick={() => run('block', [t.id])}>Block</Button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
