'use client'

import { Allowed } from '@/components/operator-context'
import { useState, useTransition } from 'react'
import { pruneNowAction, saveSettingsAction } from '@/lib/actions/settings'
import type { PresentedSettings } from '@/lib/admin/settings'
import { ErrorNote } from '@/components/error-note'
import { Button, inputClass } from '@/components/ui'

type Result = { ok: true; note: string } | { ok: false; error: string; fix: string } | null

/** The proxy-wide settings an operator may change, each saved on the record. */
export function ProxySettingsForm({ settings, profiles }: { settings: PresentedSettings; profiles: string[] }) {
  const [quarantine, setQuarantine] = useState(settings.quarantine_enabled)
  const [anonymous, setAnonymous] = useState(settings.mcp_anonymous_profile ?? '')
  const [keepAll, setKeepAll] = useState(settings.activity_retention_days === null)
  const [days, setDays] = useState(String(settings.activity_retention_days ?? 90))
  const [holdSeconds, setHoldSeconds] = useState(String(settings.call_approval_wait_ms / 1000))
  const [ceiling, setCeiling] = useState(settings.max_description_overlap === null ? '' : String(settings.max_description_overlap))
  const [perSecond, setPerSecond] = useState(settings.agent_requests_per_second === null ? '' : String(settings.agent_requests_per_second))
  const [mibPerHour, setMibPerHour] = useState(settings.agent_recorded_mib_per_hour === null ? '' : String(settings.agent_recorded_mib_per_hour))
  const [breakGlass, setBreakGlass] = useState(settings.break_glass_key)
  const [twoPerson, setTwoPerson] = useState(settings.two_person_rule)
  const [localAccounts, setLocalAccounts] = useState(settings.local_accounts)
  const [result, setResult] = useState<Result>(null)
  const [pending, start] = useTransition()
  return (
    <form aria-label="Proxy settings" className="space-y-4" onSubmit={(e) => {
      e.preventDefault()
      start(async () => {
        const r = await saveSettingsAction({
          quarantine_enabled: quarantine,
          mcp_anonymous_profile: anonymous === '' ? null : anonymous,
          activity_retention_days: keepAll ? null : Number(days),
          call_approval_wait_ms: Math.round(Number(holdSeconds) * 1000),
          max_description_overlap: ceiling.trim() === '' ? null : Number(ceiling),
          agent_requests_per_second: perSecond.trim() === '' ? null : Number(perSecond),
          agent_recorded_mib_per_hour: mibPerHour.trim() === '' ? null : Number(mibPerHour),
          break_glass_key: breakGlass,
          two_person_rule: twoPerson,
          local_accounts: localAccounts,
        })
        setResult(r.ok ? { ok: true, note: 'Saved and recorded.' } : r)
      })
    }}>
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-1" checked={quarantine} onChange={(e) => setQuarantine(e.target.checked)} />
        <span><span className="font-medium">Approval gate</span> (quarantine_enabled): new and changed tools wait for an operator on servers that are not auto-trusted.</span>
      </label>
      <div>
        <label htmlFor="anonymous-profile" className="block text-sm font-medium">Anonymous MCP profile</label>
        <select id="anonymous-profile" value={anonymous} onChange={(e) => setAnonymous(e.target.value)} className={`mt-1 w-full ${inputClass}`}>
          <option value="">none — /mcp needs an agent token (401 without one)</option>
          {profiles.map((p) => <option key={p} value={p}>{p} — loopback callers without a token get this profile&apos;s scope</option>)}
        </select>
      </div>
      <div>
        <span className="block text-sm font-medium">Activity retention</span>
        <div className="mt-1 flex flex-wrap items-center gap-3 text-sm">
          <label className="inline-flex items-center gap-2">
            <span>Keep records for</span>
            <input aria-label="Retention in days" type="number" min={1} max={36500} disabled={keepAll} value={days} onChange={(e) => setDays(e.target.value)} className={`w-24 ${inputClass}`} />
            <span>days</span>
          </label>
          <label className="inline-flex items-center gap-2"><input type="checkbox" checked={keepAll} onChange={(e) => setKeepAll(e.target.checked)} /> keep everything</label>
        </div>
      </div>
      <div>
        <label className="block text-sm font-medium" htmlFor="hold-seconds">Call approval: hold a call open for</label>
        <div className="mt-1 flex items-center gap-2 text-sm">
          <input id="hold-seconds" type="number" min={0} max={900} step={1} value={holdSeconds} onChange={(e) => setHoldSeconds(e.target.value)} className={`w-24 ${inputClass}`} />
          <span>seconds waiting for an operator, then tell the agent it awaits approval (the request stays open for an hour)</span>
        </div>
      </div>
      <div>
        <label className="block text-sm font-medium" htmlFor="overlap-ceiling">Description-overlap ceiling (max_description_overlap)</label>
        <div className="mt-1 flex items-center gap-2 text-sm">
          <input id="overlap-ceiling" type="number" min={0.01} max={1} step={0.01} placeholder="none" value={ceiling} onChange={(e) => setCeiling(e.target.value)} className={`w-24 ${inputClass}`} />
          <span>empty reports only; a value from 0.01 to 1 makes approving a tool that reads more like another than this ask first (see Surface)</span>
        </div>
      </div>
      <fieldset>
        <legend className="text-sm font-medium">Limits per agent token (empty: no limit)</legend>
        <div className="mt-1 flex flex-wrap items-center gap-2 text-sm">
          <label htmlFor="agent-per-second">Requests a second (agent_requests_per_second)</label>
          <input id="agent-per-second" type="number" min={1} step={1} placeholder="no limit" value={perSecond} onChange={(e) => setPerSecond(e.target.value)} className={`w-28 ${inputClass}`} />
        </div>
        <div className="mt-1 flex flex-wrap items-center gap-2 text-sm">
          <label htmlFor="agent-mib-per-hour">MiB of activity recorded an hour (agent_recorded_mib_per_hour)</label>
          <input id="agent-mib-per-hour" type="number" min={1} step={1} placeholder="no limit" value={mibPerHour} onChange={(e) => setMibPerHour(e.target.value)} className={`w-28 ${inputClass}`} />
        </div>
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Past either, the token&apos;s requests are refused (REST 429 with Retry-After, MCP -32000) until it is back under; the operator is never limited.</p>
      </fieldset>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Operators</legend>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={breakGlass} onChange={(e) => setBreakGlass(e.target.checked)} />
          <span><span className="font-medium">Break-glass key</span> (break_glass_key): the shared key printed at first start still signs in, as <code>break-glass</code>. Turning it off needs an enabled admin account, and ends the key&apos;s sessions.</span>
        </label>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={localAccounts} onChange={(e) => setLocalAccounts(e.target.checked)} />
          <span><span className="font-medium">Passwords</span> (local_accounts): people may sign in with a username and password. Turning this off needs single sign-on, and that you signed in through it; password sessions end, the break-glass key stays.</span>
        </label>
        <div>
          <label htmlFor="two-person-rule" className="block text-sm font-medium">Two-person rule (two_person_rule)</label>
          <select id="two-person-rule" value={twoPerson} onChange={(e) => setTwoPerson(e.target.value as typeof twoPerson)} className={`mt-1 w-full ${inputClass}`}>
            <option value="off">off — one approver decides</option>
            <option value="destructive">destructive — approving a tool, server release or held call that may destroy needs a second approver</option>
            <option value="all">all — every tool approval, server release and held call needs a second approver</option>
          </select>
        </div>
      </fieldset>
      <Allowed permission="admin"><div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" disabled={pending}>{pending ? 'Saving…' : 'Save settings'}</Button>
        <Button disabled={pending || settings.activity_retention_days === null} onClick={() => start(async () => {
          const r = await pruneNowAction({})
          setResult(r.ok ? { ok: true, note: `Pruned ${r.data} records.` } : r)
        })}>Prune now</Button>
      </div></Allowed>
      {result?.ok && <p role="status" className="text-sm text-emerald-700 dark:text-emerald-300">{result.note}</p>}
      {result && !result.ok && <ErrorNote error={result.error} fix={result.fix} />}
    </form>
  )
}
