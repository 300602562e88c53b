'use client'

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useImperativeHandle, useRef, useState, useTransition } from 'react'
import { approveCallAction, denyCallAction } from '@/lib/actions/calls'
import type { ApprovalsInbox, InboxCall } from '@/lib/dashboard/approvals'
import { ErrorNote } from '@/components/error-note'
import { showInvisible } from '@/lib/approvals/findings'
import { AgentWait } from './countdown'
import { DefinitionDiff } from './tool-review'
import { Button, Card, Empty, inputClass, Pill } from '@/components/ui'
import { Allowed, useCan, usePerson } from '@/components/operator-context'
import { NotifyHeldButton } from '@/components/held-badge'
import { DecidedBy } from '@/components/decided-by'

const POLL_MS = 1000

/** What the inbox's shortcuts ask of one call's buttons: the same decisions, the same confirmation. */
interface DecideKeys {
  /** Approves as the button does; else why it cannot. */
  approve: () => string | null
  /** Opens the confirmation a keyboard deny asks for. */
  askDeny: () => void
}

function Decide({ call, onDone, keys, onAsked }: { call: InboxCall; onDone: () => void; keys: React.Ref<DecideKeys>; onAsked: () => void }) {
  const [reason, setReason] = useState('')
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const [asking, setAsking] = useState(false)
  const [pending, start] = useTransition()
  const decide = (approve: boolean) => start(async () => {
    setAsking(false)
    const r = approve ? await approveCallAction({ id: call.id, pin: call.pin }) : await denyCallAction({ id: call.id, reason })
    setFailure(r.ok ? null : r)
    onDone()
  })
  useImperativeHandle(keys, () => ({
    approve: () => {
      if (call.changed_since_requested) return `Call ${call.id} cannot be approved as it is: its tool changed since it was requested. Deny it (d).`
      if (pending) return `Call ${call.id} is being decided.`
      decide(true)
      return null
    },
    askDeny: () => setAsking(true),
  }))
  const cancel = () => { setAsking(false); onAsked() }
  return (
    <div className="mt-3 flex flex-wrap items-end gap-2">
      {/* a call of a definition the agent was not served cannot be approved as it is: deny it */}
      <Button variant="primary" disabled={pending || call.changed_since_requested} onClick={() => decide(true)} aria-label={`Approve call ${call.id} of ${call.tool}`}>Approve</Button>
      <label className="text-xs">Reason (optional)<br />
        <input className={`${inputClass} w-64`} value={reason} onChange={(e) => setReason(e.target.value)} aria-label={`Reason to deny call ${call.id}`} />
      </label>
      <Button variant="danger" disabled={pending} onClick={() => decide(false)} aria-label={`Deny call ${call.id} of ${call.tool}`}>Deny</Button>
      {/* one key denies nothing by accident: the shortcut asks first (Enter denies, Escape goes back) */}
      {asking && (
        <div role="alertdialog" aria-label={`Confirm denying call ${call.id}`} onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); cancel() } }}
          className="flex w-full flex-wrap items-center gap-2 rounded border border-red-200 p-2 text-sm dark:border-red-900">
          <span>Deny call <span className="font-mono">{call.id}</span> of <span className="font-mono">{call.tool}</span>{reason.trim() ? ` (reason: ${reason.trim()})` : ''}? Its agent is told it was denied.</span>
          <Button variant="danger" autoFocus disabled={pending} onClick={() => decide(false)}>Yes, deny</Button>
          <Button onClick={cancel}>Cancel</Button>
        </div>
      )}
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

// keys typed into a field are text, not commands
const TYPING = 'input, textarea, select, [contenteditable="true"], [role="alertdialog"]'

const SHORTCUTS: [string, string][] = [
  ['j or ↓', 'next held call'],
  ['k or ↑', 'previous held call'],
  ['a', 'approve the selected call'],
  ['d', 'deny the selected call (asks first: Enter denies, Escape goes back)'],
  ['?', 'show or hide this list'],
]

/**
 * The held calls' shortcuts: j/k (or the arrows, within the list) select a call — it takes the
 * focus, so a screen reader reads it — a approves it and d denies it through its own buttons (so
 * a role without them is told so, and nothing is sent), ? lists them. Off while typing or with a
 * modifier held.
 */
function useInboxKeys(pending: InboxCall[]) {
  const [selected, setSelected] = useState<string | null>(null)
  const [help, setHelp] = useState(false)
  const [said, say] = useState('')
  const cards = useRef(new Map<string, HTMLLIElement>())
  const keys = useRef(new Map<string, DecideKeys>())
  const at = useRef(0)
  const mayDecide = useCan('approve')
  const role = usePerson()?.role
  const select = (c: InboxCall | undefined) => {
    if (!c) return
    at.current = pending.indexOf(c)
    setSelected(c.id)
    say('')
    cards.current.get(c.id)?.focus()
  }

  // a decided call leaves the list: the one now in its place is selected (next, as a triage goes)
  useEffect(() => {
    if (selected === null || pending.some((c) => c.id === selected)) return
    const next = pending[Math.min(at.current, pending.length - 1)]
    setSelected(next?.id ?? null)
    if (next && (document.activeElement === document.body || document.activeElement === null)) cards.current.get(next.id)?.focus()
  }, [pending, selected])

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey || t.closest(TYPING)) return
      const i = pending.findIndex((c) => c.id === selected)
      const inList = t.closest('[data-inbox]') !== null
      const run = (): boolean => {
        switch (e.key) {
          case 'j': select(pending[i < 0 ? 0 : Math.min(i + 1, pending.length - 1)]); return true
          case 'k': select(pending[i < 0 ? pending.length - 1 : Math.max(i - 1, 0)]); return true
          case 'ArrowDown': if (!inList) return false; select(pending[Math.min(i + 1, pending.length - 1)]); return true
          case 'ArrowUp': if (!inList) return false; select(pending[Math.max(i - 1, 0)]); return true
          case '?': setHelp((h) => !h); return true
          case 'Escape': if (!help) return false; setHelp(false); return true
          case 'a': case 'd': {
            if (i < 0) { say('Select a held call first: j moves to the next one.'); return true }
            if (!mayDecide) { say(`Your role (${role ?? 'signed out'}) cannot approve or deny calls.`); return true }
            const call = keys.current.get(pending[i].id)
            if (!call) return true
            if (e.key === 'a') say(call.approve() ?? `Approving call ${pending[i].id} of ${pending[i].tool}…`)
            else { say(''); call.askDeny() }
            return true
          }
          default: return false
        }
      }
      // a held key moves on, but decides once
      if (e.repeat && (e.key === 'a' || e.key === 'd')) return
      if (run()) e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  })

  return {
    selected, help, setHelp, said,
    card: (c: InboxCall) => ({
      ref: (el: HTMLLIElement | null) => { if (el) cards.current.set(c.id, el); else cards.current.delete(c.id) },
      keys: (k: DecideKeys | null) => { if (k) keys.current.set(c.id, k); else keys.current.delete(c.id) },
      // Escape from a deny's confirmation comes back to its call
      focus: () => cards.current.get(c.id)?.focus(),
    }),
  }
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
  const kb = useInboxKeys(pending)
  return (
    <div className="space-y-4">
      <p className="text-xs text-slate-500 dark:text-slate-400" aria-live="polite">{inbox.isError ? 'Live updates paused.' : `Live: held calls appear here within a second (${pending.length} waiting).`}</p>
      <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
        <span>Keyboard: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>a</kbd> approve, <kbd>d</kbd> deny, <kbd>?</kbd> all shortcuts.</span>
        <NotifyHeldButton />
        <span role="status" data-testid="shortcut-said" className="font-medium text-slate-800 dark:text-slate-200">{kb.said}</span>
      </div>
      {kb.help && (
        <section aria-label="Keyboard shortcuts" className="rounded border border-slate-200 p-3 text-sm dark:border-slate-800">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
            {SHORTCUTS.map(([k, what]) => <div key={k} className="contents"><dt className="font-mono">{k}</dt><dd>{what}</dd></div>)}
          </dl>
          <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">Not while typing in a field, nor with Ctrl, Alt or ⌘ held. Escape or ? closes this list.</p>
          <Button className="mt-2" onClick={() => kb.setHelp(false)}>Close</Button>
        </section>
      )}
      {inbox.isError && <ErrorNote error={(inbox.error as Error).message} fix="Reload the page; if it persists, sign in again." />}
      {pending.length === 0 ? <Empty>No call is waiting for approval. Put a tool under call approval on its server page (Calls: hold for approval).</Empty> : (
        <ul className="space-y-3" aria-label="Calls waiting for approval" data-inbox>
          {pending.map((c, n) => (
            <li key={c.id} id={`call-${c.id}`} data-testid={`call-${c.id}`} ref={kb.card(c).ref} tabIndex={-1}
              aria-label={`Held call ${n + 1} of ${pending.length}: ${c.tool}, asked by ${c.caller}`} aria-current={kb.selected === c.id ? 'true' : undefined}
              className="rounded-lg outline-none focus-visible:ring-2 focus-visible:ring-sky-500 aria-[current=true]:ring-2 aria-[current=true]:ring-sky-500">
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
                <Allowed permission="approve"><Decide call={c} onDone={refresh} keys={kb.card(c).keys} onAsked={kb.card(c).focus} /></Allowed>
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
