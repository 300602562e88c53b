'use client'

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, useTransition } from 'react'
import { approveCallAction, denyCallAction } from '@/lib/actions/calls'
import type { ApprovalsInbox, InboxCall } from '@/lib/dashboard/approvals'
import { ErrorNote } from '@/components/error-note'
import { showInvisible } from '@/lib/approvals/findings'
import { AgentWait } from './countdown'
import { DefinitionDiff } from './tool-review'
import { Button, Card, Empty, inputClass, Pill } from '@/components/ui'
import { Allowed } from '@/components/operator-context'
import { DecidedBy } from '@/components/decided-by'

const POLL_MS = 1000

function Decide({ call, onDone }: { call: InboxCall; onDone: () => void }) {
  const [reason, setReason] = useState('')
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const [pending, start] = useTransition()
  const decide = (approve: boolean) => start(async () => {
    const r = approve ? await approveCallAction({ id: call.id, pin: call.pin }) : await denyCallAction({ id: call.id, reason })
    setFailure(r.ok ? null : r)
    onDone()
  })
  return (
    <div className="mt-3 flex flex-wrap items-end gap-2">
      {/* a call of a definition the agent was not served cannot be approved as it is: deny it */}
      <Button variant="primary" disabled={pending || call.changed_since_requested} onClick={() => decide(true)} aria-label={`Approve call ${call.id} of ${call.tool}`}>Approve this call</Button>
      <label className="text-xs">Reason (optional)<br />
        <input className={`${inputClass} w-64`} value={reason} onChange={(e) => setReason(e.target.value)} aria-label={`Reason to deny call ${call.id}`} />
      </label>
      <Button variant="danger" disabled={pending} onClick={() => decide(false)} aria-label={`Deny call ${call.id} of ${call.tool}`}>Deny</Button>
      {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
    </div>
  )
}

/** A held call's arguments: all of them when small; else their start, and the rest on demand (the live poll carries only that much). */
function Arguments({ call }: { call: InboxCall }) {
  const [all, setAll] = useState<unknown>(undefined)
  const [failure, setFailure] = useState<string | null>(null)
  const [pending, start] = useTransition()
  const shown = call.arguments !== null ? call.arguments : all
  const box = 'mt-1 max-h-72 overflow-auto rounded bg-slate-950 p-2 text-xs text-slate-100'
  if (call.arguments_hidden) return <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Hidden: reading call arguments needs the auditor, approver or admin role.</p>
  // invisible characters shown, as in every review: what runs is what is read
  if (shown !== undefined) return <pre tabIndex={0} aria-label={`Arguments of call ${call.id}`} className={box}>{showInvisible(JSON.stringify(shown, null, 2))}</pre>
  return (
    <>
      <pre tabIndex={0} aria-label={`Start of the arguments of call ${call.id}`} className={box}>{showInvisible(call.arguments_preview ?? '')}…</pre>
      <Button className="mt-1" disabled={pending} onClick={() => start(async () => {
        const res = await fetch(`/api/dashboard/calls/${encodeURIComponent(call.id)}`, { cache: 'no-store' })
        const body = await res.json()
        if (res.ok) setAll(body.arguments)
        else setFailure(body.error ?? `the arguments could not be read (${res.status})`)
      })}>Show all arguments ({Math.ceil(call.arguments_length / 1024)} KiB)</Button>
      {failure && <ErrorNote error={failure} fix="Reload the page; if it persists, sign in again." />}
    </>
  )
}

/** The inbox, polled every second: shared by Approvals and the Overview's held calls (one query, one poll). */
export function useInbox(initial?: ApprovalsInbox) {
  return useQuery({
    queryKey: ['calls'],
    queryFn: async () => {
      const res = await fetch('/api/dashboard/calls', { cache: 'no-store' })
      const body = await res.json()
      if (!res.ok) throw new Error(res.status === 401 ? 'Your session ended: sign in again to keep the inbox live.' : body.error)
      return body as ApprovalsInbox
    },
    ...(initial ? { initialData: initial } : {}),
    refetchInterval: POLL_MS,
  })
}

/**
 * Calls held for an operator's approval, live: the server, the tool and what it declares, the
 * exact arguments, and who asked. An approval is for that one call.
 */
export function ApprovalsInboxView({ initial }: { initial: ApprovalsInbox }) {
  const client = useQueryClient()
  const inbox = useInbox(initial)
  const refresh = () => void client.invalidateQueries({ queryKey: ['calls'] })
  const { pending, recent } = inbox.data!
  return (
    <div className="space-y-4">
      <p className="text-xs text-slate-500 dark:text-slate-400" aria-live="polite">{inbox.isError ? 'Live updates paused.' : `Live: held calls appear here within a second (${pending.length} waiting).`}</p>
      {inbox.isError && <ErrorNote error={(inbox.error as Error).message} fix="Reload the page; if it persists, sign in again." />}
      {pending.length === 0 ? <Empty>No call is waiting for approval. Put a tool under call approval on its server page (Calls: hold for approval).</Empty> : (
        <ul className="space-y-3" aria-label="Calls waiting for approval">
          {pending.map((c) => (
            <li key={c.id} id={`call-${c.id}`} data-testid={`call-${c.id}`}>
              <Card title={<span className="font-mono">{c.tool}</span>}>
                <p className="text-xs text-slate-600 dark:text-slate-400">
                  {c.caller} asked at {c.created_at.replace('T', ' ').slice(0, 19)} UTC · request <span className="font-mono">{c.request_id}</span> · call <span className="font-mono">{c.id}</span> · <AgentWait until={c.agent_waits_until} expires={c.expires_at} />
                </p>
                {(c.title || c.description) && <p className="mt-1 text-sm">{c.title && <strong>{showInvisible(c.title)}. </strong>}{c.description && showInvisible(c.description)}</p>}
                {c.changed_since_requested && (
                  <div role="alert" className="mt-2 rounded border border-red-300 bg-red-50 px-2 py-1 text-xs text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
                    <p><strong>The tool changed since this call was requested</strong>: it is not served as the agent saw it when it asked, so this call cannot be approved as it is. Deny it; the agent may call again.</p>
                    {c.changes.length > 0 && <DefinitionDiff diff={c.changes} label={`What changed in ${c.tool}`} />}
                  </div>
                )}
                {!c.changed_since_requested && c.gate && (
                  <p role="status" className="mt-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
                    Approved now, it would not run: <code>{c.gate.reason}</code> — {c.gate.detail}
                  </p>
                )}
                <div className="mt-1 flex flex-wrap gap-1">
                  {c.annotations ? Object.entries(c.annotations).map(([k, v]) => <Pill key={k} tone={k === 'destructiveHint' && v === true ? 'bad' : k === 'openWorldHint' && v === true ? 'warn' : 'muted'}>{k}: {String(v)}</Pill>) : <Pill>no annotations declared</Pill>}
                </div>
                <h4 className="mt-2 text-xs font-medium">Arguments</h4>
                <Arguments call={c} />
                <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Requested under the tool&apos;s pin <code className="break-all">{c.pin ?? 'none'}</code>.</p>
                {c.first_of_two && <p role="status" className="mt-2 text-sm">1 of 2: <DecidedBy verb="approved" by={c.first_of_two.by} at={c.first_of_two.at} />; another approver must approve it too (two-person rule).</p>}
                <Allowed permission="approve"><Decide call={c} onDone={refresh} /></Allowed>
              </Card>
            </li>
          ))}
        </ul>
      )}
      <Card title="Latest decisions">
        {recent.length === 0 ? <Empty>No decision yet.</Empty> : (
          <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800" aria-label="Latest decisions">
            {recent.map((c) => (
              <li key={c.id} className="flex flex-wrap items-center gap-2 py-1.5">
                <Pill tone={c.status === 'denied' || c.status === 'expired' || c.status === 'refused' ? 'bad' : 'good'}>{c.status}</Pill>
                <span className="font-mono text-xs">{c.tool}</span>
                <span className="text-xs text-slate-600 dark:text-slate-300">{c.caller}{c.decided_by && <> · <DecidedBy verb={c.status} by={c.decided_by} at={c.decided_at} /></>}{c.reason ? ` · ${c.reason}` : ''}</span>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  )
}
