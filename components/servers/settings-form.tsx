'use client'

import { Allowed } from '@/components/operator-context'
import { useState, useTransition } from 'react'
import { saveServerSettings } from '@/lib/actions/servers'
import type { ServerSettings } from '@/lib/schemas/admin'
import { ErrorNote } from '@/components/error-note'
import { Button, inputClass } from '@/components/ui'

const lines = (s: string) => s.split(/[\n,]+/).map((x) => x.trim()).filter(Boolean)

/** disabled_tools, the enabled_tools allowlist, trust, the call timeout, roots, isolation and sampling: the `configure` remediation. */
export function SettingsForm({ server, settings }: { server: string; settings: ServerSettings }) {
  const [disabled, setDisabled] = useState(settings.disabledTools.join('\n'))
  const [useAllowlist, setUseAllowlist] = useState(settings.enabledTools !== null)
  const [allowed, setAllowed] = useState((settings.enabledTools ?? []).join('\n'))
  const [trust, setTrust] = useState(settings.trust)
  const [timeoutSeconds, setTimeoutSeconds] = useState(String(settings.callTimeoutMs / 1000))
  const [roots, setRoots] = useState(settings.roots.map((r) => r.uri).join('\n'))
  const [isolation, setIsolation] = useState(settings.isolation)
  const [sampling, setSampling] = useState(settings.sampling)
  const [result, setResult] = useState<{ ok: true } | { ok: false; error: string; fix: string } | null>(null)
  const [pending, start] = useTransition()
  return (
    <form aria-label="Server settings" className="space-y-3" onSubmit={(e) => {
      e.preventDefault()
      start(async () => {
        const r = await saveServerSettings({ server, settings: {
          disabledTools: lines(disabled), enabledTools: useAllowlist ? lines(allowed) : null, trust,
          callTimeoutMs: Math.round(Number(timeoutSeconds) * 1000), roots: lines(roots).map((uri) => ({ uri })), isolation, sampling,
        } })
        setResult(r.ok ? { ok: true } : r)
      })
    }}>
      <div>
        <label htmlFor="trust" className="block text-sm font-medium">Trust</label>
        <select id="trust" value={trust} onChange={(e) => setTrust(e.target.value as ServerSettings['trust'])} className={`mt-1 ${inputClass}`}>
          <option value="manual">manual — new and changed tools wait for approval</option>
          <option value="auto">auto — approval gate off (user blocks still apply)</option>
        </select>
      </div>
      <div>
        <label htmlFor="disabled-tools" className="block text-sm font-medium">Disabled tools <span className="font-normal text-slate-600 dark:text-slate-300">(one per line)</span></label>
        <textarea id="disabled-tools" rows={3} value={disabled} onChange={(e) => setDisabled(e.target.value)} className={`mt-1 w-full font-mono ${inputClass}`} />
      </div>
      <div>
        <label className="inline-flex items-center gap-2 text-sm font-medium">
          <input type="checkbox" checked={useAllowlist} onChange={(e) => setUseAllowlist(e.target.checked)} /> Only allow listed tools (enabled_tools)
        </label>
        {useAllowlist && (
          <textarea aria-label="Enabled tools (one per line)" rows={3} value={allowed} onChange={(e) => setAllowed(e.target.value)} className={`mt-1 w-full font-mono ${inputClass}`} />
        )}
      </div>
      <div>
        <label htmlFor="call-timeout" className="block text-sm font-medium">Call timeout <span className="font-normal text-slate-600 dark:text-slate-300">(seconds; progress from the server restarts the clock)</span></label>
        <input id="call-timeout" type="number" min={1} step={1} value={timeoutSeconds} onChange={(e) => setTimeoutSeconds(e.target.value)} className={`mt-1 w-32 ${inputClass}`} />
      </div>
      <div>
        <label htmlFor="roots" className="block text-sm font-medium">Roots <span className="font-normal text-slate-600 dark:text-slate-300">(file:// URIs the server may ask for, one per line; none by default)</span></label>
        <textarea id="roots" rows={2} value={roots} onChange={(e) => setRoots(e.target.value)} className={`mt-1 w-full font-mono ${inputClass}`} />
      </div>
      <div>
        <label htmlFor="isolation" className="block text-sm font-medium">Upstream sessions</label>
        <select id="isolation" value={isolation} onChange={(e) => setIsolation(e.target.value as ServerSettings['isolation'])} className={`mt-1 w-full max-w-full ${inputClass}`}>
          <option value="auto">auto — one per agent on HTTP, and for servers that keep session state</option>
          <option value="per_token">per agent — each agent token its own session (on stdio its own process, stopped when idle)</option>
          <option value="shared">shared — one session for every agent (for stateless servers)</option>
        </select>
      </div>
      <div>
        <label htmlFor="sampling" className="block text-sm font-medium">Sampling <span className="font-normal text-slate-600 dark:text-slate-300">(a completion the server asks of the caller&apos;s model; a change reconnects the server)</span></label>
        <select id="sampling" value={sampling} onChange={(e) => setSampling(e.target.value as ServerSettings['sampling'])} className={`mt-1 w-full max-w-full ${inputClass}`}>
          <option value="relay">relay — put to the caller whose call it is, for its model to answer</option>
          <option value="withhold">withhold — refused unasked; sampling is not declared to the server</option>
        </select>
      </div>
      <Allowed permission="approve"><Button type="submit" variant="primary" disabled={pending}>{pending ? 'Saving…' : 'Save settings'}</Button></Allowed>
      {result?.ok && <p role="status" className="text-sm text-emerald-700 dark:text-emerald-300">Saved and recorded.</p>}
      {result && !result.ok && <ErrorNote error={result.error} fix={result.fix} />}
    </form>
  )
}
