'use client'

import { useCan } from '@/components/operator-context'
import { DecidedBy } from '@/components/decided-by'
import { Fragment, useOptimistic, useState, useTransition } from 'react'
import { callApprovalAction, changeToolsAction } from '@/lib/actions/servers'
import type { InventoryTool } from '@/lib/catalog/inventory'
import type { ToolReview } from '@/lib/approvals/review'
import type { BulkVerb } from '@/lib/schemas/actions'
import { ApprovePanel } from '@/components/approvals/approve-panel'
import { ToolReviewView } from '@/components/approvals/tool-review'
import { CopyButton } from '@/components/copy-button'
import { ErrorNote } from '@/components/error-note'
import { Button, Empty, Pill, WideTable } from '@/components/ui'

const statusTone = (s: string) => (s === 'callable' ? 'good' : s === 'tool_pending_approval' || s === 'tool_changed' ? 'warn' : 'bad')
const destructive = (t: InventoryTool) => t.annotations?.destructiveHint === true

/** The approval in words: no record means approved implicitly (a baseline), or, on a quarantined server, not reviewed yet. */
const approvalWords = (t: InventoryTool, quarantined: boolean) => ({
  approved: 'approved', pending: 'awaiting approval', changed: 'changed since approved',
  none: quarantined ? 'not reviewed yet (releasing approves it as shown)' : 'approved implicitly (no record: it was there at the baseline)',
})[t.approval]

type Panel = { kind: 'review'; id: string } | { kind: 'bulk-approve' } | { kind: 'confirm-unblock'; ids: string[] } | null

/**
 * A server's tools with their approval state, annotations, pins and call approval. Approving
 * always shows the full definition first (and sends the pins shown); unblocking a tool annotated
 * destructive asks first.
 */
export function ToolTable({ tools, reviews, callApproval, quarantined, firstOfTwo = {} }: { tools: InventoryTool[]; reviews: Record<string, ToolReview>; callApproval: string[]; quarantined: boolean; firstOfTwo?: Record<string, { by: string; at: string }> }) {
  const mayApprove = useCan('approve')
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [panel, setPanel] = useState<Panel>(null)
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const [pending, start] = useTransition()
  const byId = new Map(tools.map((t) => [t.id, t]))
  const pinOf = (id: string) => reviews[id]?.pin ?? byId.get(id)?.pin ?? ''
  const run = (verb: BulkVerb, ids: string[], confirm?: boolean) => start(async () => {
    const r = await changeToolsAction({ verb, ids, ...(verb === 'approve' ? { hashes: Object.fromEntries(ids.map((id) => [id, pinOf(id)])) } : {}), ...(confirm ? { confirm } : {}) })
    setFailure(r.ok ? null : r)
    if (r.ok) { setSelected(new Set()); setPanel(null) }
  })
  const unblock = (ids: string[]) => (ids.some((id) => destructive(byId.get(id)!)) ? setPanel({ kind: 'confirm-unblock', ids }) : run('enable', ids))
  // the box follows the click at once; a refused change springs back when the action returns
  const [held, setHeld] = useOptimistic(callApproval, (cur: string[], { name, on }: { name: string; on: boolean }) => (on ? [...cur, name] : cur.filter((n) => n !== name)))
  const toggleHold = (t: InventoryTool, on: boolean) => start(async () => {
    setHeld({ name: t.name, on })
    const r = await callApprovalAction({ id: t.id, on })
    setFailure(r.ok ? null : r)
  })
  if (tools.length === 0) return <Empty>This server has not reported any tools yet.</Empty>
  const all = selected.size === tools.length
  const chosen = [...selected]
  const overCeiling = chosen.some((id) => (reviews[id]?.surface.crossings.length ?? 0) > 0)
  return (
    <div>
      {mayApprove && <div role="toolbar" aria-label="Bulk actions" className="mb-2 flex flex-wrap items-center gap-2">
        <span className="text-sm text-slate-600 dark:text-slate-400">{selected.size} selected</span>
        <Button disabled={pending || selected.size === 0} onClick={() => setPanel({ kind: 'bulk-approve' })}>Approve selected</Button>
        <Button variant="danger" disabled={pending || selected.size === 0} onClick={() => run('block', chosen)}>Block selected</Button>
        <Button disabled={pending || selected.size === 0} onClick={() => unblock(chosen)}>Unblock selected</Button>
      </div>}
      {panel?.kind === 'bulk-approve' && (
        <div className="mb-3 rounded border border-slate-200 p-3 dark:border-slate-800" aria-label="Review before approving">
          <p className="mb-2 text-sm">Approve {chosen.length} definition{chosen.length === 1 ? '' : 's'}, exactly as shown:</p>
          <div className="space-y-4">
            {chosen.map((id) => reviews[id]
              ? <div key={id}><h4 className="font-mono text-xs font-semibold">{id}</h4><ToolReviewView review={reviews[id]} /></div>
              : <p key={id} className="text-xs"><span className="font-mono">{id}</span>: already approved, pin <code className="break-all">{pinOf(id)}</code></p>)}
          </div>
          <div className="mt-3 flex gap-2">
            {/* a definition over the overlap ceiling says so in its review above: the button says what is accepted */}
            <Button variant="primary" disabled={pending} onClick={() => run('approve', chosen, overCeiling || undefined)}>
              {`Approve ${chosen.length} definition${chosen.length === 1 ? '' : 's'}${overCeiling ? ' anyway (over the overlap ceiling)' : ''}`}
            </Button>
            <Button onClick={() => setPanel(null)}>Cancel</Button>
          </div>
        </div>
      )}
      {panel?.kind === 'confirm-unblock' && (
        <div role="alertdialog" aria-label="Confirm unblocking" className="mb-3 rounded border border-red-200 p-3 dark:border-red-900">
          <p className="text-sm">{panel.ids.filter((id) => destructive(byId.get(id)!)).join(', ')} {panel.ids.length > 1 ? 'are' : 'is'} annotated destructive, and an operator blocked {panel.ids.length > 1 ? 'them' : 'it'} on purpose. Unblock?</p>
          <div className="mt-2 flex gap-2">
            <Button variant="danger" disabled={pending} onClick={() => run('enable', panel.ids, true)}>Yes, unblock</Button>
            <Button onClick={() => setPanel(null)}>Cancel</Button>
          </div>
        </div>
      )}
      {failure && <div className="mb-2"><ErrorNote error={failure.error} fix={failure.fix} /></div>}
      <WideTable label="Tools table">
        <table className="w-full min-w-[52rem] text-sm" aria-label="Tools">
          <thead className="text-left text-xs text-slate-500 dark:text-slate-400">
            <tr>
              <th scope="col" className="w-8 pb-2"><input type="checkbox" aria-label="Select all tools" checked={all} onChange={() => setSelected(all ? new Set() : new Set(tools.map((t) => t.id)))} /></th>
              <th scope="col">Tool</th><th scope="col">Status</th><th scope="col">Annotations</th><th scope="col">Pin</th><th scope="col">Calls</th><th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((t) => (
              <Fragment key={t.id}>
                <tr data-testid={`tool-${t.id}`} data-status={t.status} className="border-t border-slate-200 align-top dark:border-slate-800">
                  <td className="py-2"><input type="checkbox" aria-label={`Select ${t.name}`} checked={selected.has(t.id)}
                    onChange={(e) => { const next = new Set(selected); if (e.target.checked) next.add(t.id); else next.delete(t.id); setSelected(next) }} /></td>
                  <th scope="row" className="py-2 pr-3 text-left font-normal">
                    <span className="font-mono text-xs font-medium">{t.name}</span>
                    {t.description && <p className="text-xs text-slate-600 dark:text-slate-400">{t.description}</p>}
                  </th>
                  <td className="py-2 pr-3">
                    <span className="flex flex-col items-start gap-1">
                      <Pill tone={statusTone(t.status)}>{t.status === 'callable' ? 'served' : t.status}</Pill>
                      <span className="text-xs text-slate-600 dark:text-slate-300">{approvalWords(t, quarantined)}{t.blocked ? ' · blocked by an operator' : ''}</span>
                      {firstOfTwo[t.id] && <span className="text-xs font-medium">1 of 2: <DecidedBy verb="approved" by={firstOfTwo[t.id].by} at={firstOfTwo[t.id].at} /></span>}
                      {t.decided && <span className="text-xs text-slate-600 dark:text-slate-300"><DecidedBy verb={t.blocked ? 'blocked' : t.approval === 'approved' ? 'approved' : 'decided'} by={t.decided.by} at={t.decided.at} /></span>}
                    </span>
                  </td>
                  <td className="py-2 pr-3 text-xs">{t.annotations ? Object.entries(t.annotations).map(([k, v]) => <div key={k}><code>{k}</code>: {String(v)}</div>) : <span className="text-slate-600 dark:text-slate-300">none declared</span>}</td>
                  <td className="py-2 pr-3">
                    {t.pin ? <span className="flex items-start gap-1"><code className="max-w-56 break-all text-[11px]">{t.pin}</code><CopyButton text={t.pin} label={`Copy pin of ${t.name}`} /></span> : <span className="text-xs text-slate-600 dark:text-slate-300">no hash</span>}
                  </td>
                  <td className="py-2 pr-3 text-xs">
                    <label className="inline-flex items-center gap-1">
                      <input type="checkbox" checked={held.includes(t.name)} disabled={pending || !mayApprove} onChange={(e) => toggleHold(t, e.target.checked)} aria-label={`Hold every call of ${t.name} for approval`} />
                      hold for approval
                    </label>
                  </td>
                  <td className="py-2">
                    {!mayApprove ? null : t.blocked ? <Button disabled={pending} onClick={() => unblock([t.id])} aria-label={`Unblock ${t.name}`}>Unblock</Button>
                      : t.approval === 'pending' || t.approval === 'changed'
                        ? <Button variant="primary" aria-expanded={panel?.kind === 'review' && panel.id === t.id} onClick={() => setPanel(panel?.kind === 'review' && panel.id === t.id ? null : { kind: 'review', id: t.id })}>Review &amp; approve</Button>
                        : <Button variant="danger" disabled={pending} onClick={() => run('block', [t.id])} aria-label={`Block ${t.name}`}>Block</Button>}
                  </td>
                </tr>
                {panel?.kind === 'review' && panel.id === t.id && reviews[t.id] && (
                  <tr className="bg-slate-50 dark:bg-slate-950"><td colSpan={7} className="p-3"><ApprovePanel review={reviews[t.id]} /></td></tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </WideTable>
    </div>
  )
}
