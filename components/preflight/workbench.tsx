'use client'

import { Allowed } from '@/components/operator-context'
import { useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useEffect, useRef, useState, useTransition } from 'react'
import { remediate, restartSettled, runPreflight } from '@/lib/actions/preflight'
import type { PreflightOptions } from '@/lib/dashboard/preflight'
import type { DashboardCheck } from '@/lib/dashboard/preflight'
import type { Fix, PreflightForm } from '@/lib/schemas/dashboard'
import { preflightSearch } from '@/lib/dashboard/search-params'
import { ErrorNote } from '@/components/error-note'
import { Button, Card, inputClass, Pill } from '@/components/ui'
import { VerdictBadge, VerdictCounts } from '@/components/verdict'
import { IdPicker } from './id-picker'
import { MetaPreview } from './meta-preview'
import { ResultRow } from './result-row'

type Failure = { error: string; fix: string }
const policyLabels = {
  read_only_only: 'Read-only tools only',
  exclude_destructive: 'Exclude destructive tools',
  exclude_open_world: 'Exclude open-world tools',
} as const

const sameForm = (a: PreflightForm, b: PreflightForm) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The preflight page's interactive part: the form, the verdict and the rows with their fixes,
 * then the live `_meta` preview. `autorun` (a link from Activity) runs the check on arrival;
 * `loggedIn` (back from a row's Log in) follows that server's new connection, then checks.
 */
export function PreflightWorkbench({ initial, options, autorun, loggedIn }: { initial: PreflightForm; options: PreflightOptions; autorun: boolean; loggedIn: string | null }) {
  const [form, setForm] = useState(initial)
  const [check, setCheck] = useState<{ result: DashboardCheck; form: PreflightForm } | null>(null)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [pending, start] = useTransition()
  const [focus, setFocus] = useState<'result' | 'notice' | null>(null)
  const resultRef = useRef<HTMLHeadingElement>(null)
  const noticeRef = useRef<HTMLParagraphElement>(null)
  const queries = useQueryClient()
  const unknownToken = form.token !== null && !options.tokens.some((t) => t.name === form.token)
  // a pinned token is evaluated through its pin: the profile field narrows further, it does not replace it
  const pin = options.tokens.find((t) => t.name === form.token)?.profilePin ?? null

  const update = (patch: Partial<PreflightForm>) => setForm((f) => ({ ...f, ...patch }))
  // a check or a fix may change what /mcp answers: the preview is computed again at once
  const refreshPreview = () => queries.invalidateQueries({ queryKey: ['mcp-preview'] })
  // `after`: what to say once the check is back (a restart's check runs when the restart landed)
  const run = (f: PreflightForm, after: string | null = null) => start(async () => {
    setNotice(null)
    // filters live in the URL, so the check can be linked to and reloaded
    window.history.replaceState(null, '', `/preflight${preflightSearch(f)}`)
    const r = await runPreflight(f)
    if (r.ok) { setCheck({ result: r.data, form: f }); setFailure(null); setNotice(after); setFocus(after ? 'notice' : 'result') } else setFailure(r)
    refreshPreview()
  })
  // a restart, an enabled server or a login: the check runs again once the runtime reports the connection
  const [restarting, setRestarting] = useState<{ server: string; form: PreflightForm; landed?: string } | null>(null)
  const fix = (what: Fix) => check && start(async () => {
    const r = await remediate({ fix: what, check: check.form, requestId: check.result.request_id })
    if (r.ok) {
      setCheck({ result: r.data, form: check.form })
      setFailure(null)
      // a restart is only asked for here, and an enabled server still has to connect: the check
      // runs again once the runtime reports (not beside the connection state from before)
      const connecting = what.kind === 'restart_server'
        || (what.kind === 'enable_server' && r.data.tools.some((t) => t.id.startsWith(`${what.server}:`) && t.status !== 'ready'))
      if (connecting) setRestarting({ server: what.server, form: check.form })
      setNotice(what.kind === 'restart_server'
        ? `Restart of ${what.server} asked for, recorded under request ${check.result.request_id}. Reconnecting… the set is checked again once the runtime reports the new connection.`
        : connecting ? `Done: enabled server ${what.server}, recorded under request ${check.result.request_id}. Connecting… the set is checked again once the runtime reports the connection.`
          : `Done: ${describeFix(what)}. Recorded under request ${check.result.request_id}; the set was checked again.`)
      setFocus('notice')
    } else setFailure(r)
    refreshPreview()
  })

  // after Run, focus lands on the verdict; after a fix (whose button may be gone), on what it did
  useEffect(() => {
    if (focus === null) return
    ;(focus === 'result' ? resultRef : noticeRef).current?.focus()
    setFocus(null)
  }, [focus])
  useEffect(() => {
    if (!restarting) return
    const { server, form: f, landed: done = `Done: ${server} reported its new connection; the set was checked again.` } = restarting
    const deadline = Date.now() + 60_000
    // one question at a time (a slow answer must not start a second check), none once unmounted
    let stopped = false
    let timer: ReturnType<typeof setTimeout>
    const ask = async () => {
      const landed = await restartSettled({ server })
      if (stopped) return
      if (landed.ok && landed.data) {
        setRestarting(null)
        run(f, done)
      } else if (Date.now() > deadline) {
        setRestarting(null)
        setNotice(`${server} has not reported a new connection within a minute: its log (Servers → ${server}) says why. Run the check again when it has.`)
      } else timer = setTimeout(() => void ask(), 1000)
    }
    timer = setTimeout(() => void ask(), 1000)
    return () => { stopped = true; clearTimeout(timer) }
    // run is recreated each render; this follows one restart from start to end
  }, [restarting])
  const autoran = useRef(false)
  useEffect(() => {
    if (autoran.current) return
    if (loggedIn) {
      autoran.current = true
      // the URL drops logged_in, so a reload does not claim the login again
      window.history.replaceState(null, '', `/preflight${preflightSearch(initial)}`)
      setNotice(`Logged in to ${loggedIn}. Connecting with the new token… the set is checked once the runtime reports the connection.`)
      setRestarting({ server: loggedIn, form: initial, landed: `Done: logged in to ${loggedIn}, and it reported its new connection; the set was checked again.` })
    } else if (autorun) { autoran.current = true; run(initial) }
  })

  const stale = check !== null && !sameForm(check.form, form)
  return (
    <div className="space-y-6">
      <div className="min-w-0 space-y-6">
        <Card>
          <form aria-label="Preflight" className="space-y-4" onSubmit={(e) => { e.preventDefault(); run(form) }}>
            <IdPicker ids={form.ids} onChange={(ids) => update({ ids })} />
            <div className="grid gap-4 sm:grid-cols-2">
              <div>
                <label htmlFor="tier" className="block text-sm font-medium">Evaluate as</label>
                <select id="tier" value={form.token ?? ''} onChange={(e) => update({ token: e.target.value || null })} className={`mt-1 w-full ${inputClass}`}>
                  <option value="">Operator (full disclosure)</option>
                  {options.tokens.map((t) => <option key={t.name} value={t.name}>Agent token “{t.name}”</option>)}
                  {unknownToken && <option value={form.token!}>“{form.token}”: no such token</option>}
                </select>
                {unknownToken && <div className="mt-2"><ErrorNote error={`No agent token named “${form.token}” exists: it was revoked, renamed or never created.`} fix="Choose a token from the list (Tokens & profiles lists them all), or check as the operator." /></div>}
              </div>
              <div>
                <label htmlFor="profile" className="block text-sm font-medium">Profile</label>
                <select id="profile" value={form.profile ?? ''} onChange={(e) => update({ profile: e.target.value || null })} className={`mt-1 w-full ${inputClass}`}>
                  <option value="">{pin ? `None (token’s pin “${pin}” applies)` : 'None (no narrowing)'}</option>
                  {options.profiles.map((p) => <option key={p} value={p}>{p}</option>)}
                </select>
              </div>
            </div>
            <fieldset>
              <legend className="text-sm font-medium">Policy filters</legend>
              <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
                {(Object.keys(policyLabels) as (keyof typeof policyLabels)[]).map((k) => (
                  <label key={k} className="inline-flex items-center gap-2 text-sm">
                    <input type="checkbox" name={k} checked={!!form.policy[k]} onChange={(e) => update({ policy: { ...form.policy, [k]: e.target.checked } })} />
                    {policyLabels[k]} <code className="text-xs text-slate-600 dark:text-slate-300">{k}</code>
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="flex items-center gap-3">
              <Allowed permission="operate"><Button type="submit" variant="primary" disabled={pending}>{pending ? 'Checking…' : 'Run preflight'}</Button></Allowed>
              <span className="text-xs text-slate-500 dark:text-slate-400">Recorded on the activity log (surface <code>dashboard</code>).</span>
            </div>
            {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
          </form>
        </Card>

        {notice && <p role="status" ref={noticeRef} tabIndex={-1} className="rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100">{notice}</p>}

        {check ? (
          <Card>
            <h2 ref={resultRef} tabIndex={-1} className="mb-3 flex flex-wrap items-center gap-3 text-base font-semibold">
              Result <VerdictBadge verdict={check.result.verdict} exitCode={check.result.exit_code} />
              <VerdictCounts tools={check.result.tools} />
              {stale && <Pill tone="warn">out of date</Pill>}
            </h2>
            {stale && (
              <p data-testid="result-stale" className="mb-3 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
                The form changed since this check ran: these verdicts are for the previous ids and options. <Allowed permission="operate"><Button className="ml-1" disabled={pending} onClick={() => run(form)}>Run again</Button></Allowed>
              </p>
            )}
            <p className="mb-3 text-xs text-slate-600 dark:text-slate-300">
              {check.result.tier === 'operator' ? 'Operator tier' : `Agent tier, as ${check.result.caller}: each row also shows the operator-tier cause`} · checked {new Date(check.result.checked_at).toLocaleString()} · request{' '}
              <Link className="font-mono break-all text-sky-700 underline dark:text-sky-300" href={`/activity/${check.result.request_id}`}>{check.result.request_id}</Link>
            </p>
            <table className={`w-full text-sm max-md:block ${stale ? 'opacity-60' : ''}`} aria-label="Per-tool verdicts">
              <thead className="text-left text-xs text-slate-600 max-md:hidden dark:text-slate-300">
                <tr>
                  <th scope="col" className="pb-2 pr-3">Id</th>
                  <th scope="col" className="pb-2 pr-3">{check.result.tier === 'operator' ? 'Verdict' : 'Agent is told'}</th>
                  <th scope="col" className="pb-2 pr-3">{check.result.tier === 'operator' ? 'Why, and the fix' : 'Cause (operator tier) and the fix'}</th>
                  <th scope="col" className="pb-2">Action</th>
                </tr>
              </thead>
              <tbody className="max-md:block">
                {check.result.tools.map((t) => (
                  <ResultRow key={t.id} result={t} view={check.result.rows[t.id] ?? { fix: null }} detail={check.result.details[t.id]} requestId={check.result.request_id}
                    busy={pending || restarting !== null} onFix={fix} onRecheck={() => run(check.form)}
                    onReplaceId={(from, to) => {
                      const next = { ...check.form, ids: check.form.ids.map((i) => (i.trim() === from ? to : i)) }
                      setForm(next)
                      run(next)
                    }} />
                ))}
              </tbody>
            </table>
          </Card>
        ) : (
          <Card><p className="text-sm text-slate-600 dark:text-slate-300">Pick the tools a job needs and run a preflight: each id comes back ready, or with the reason it is not and the button that fixes it.</p></Card>
        )}
      </div>
      <MetaPreview form={form} />
    </div>
  )
}

function describeFix(f: Fix): string {
  switch (f.kind) {
    case 'approve_tool': return `approved ${f.id}`
    case 'enable_tool': return `unblocked ${f.id}`
    case 'allow_tool': return `allowed ${f.id} in its server's configuration`
    case 'enable_server': return `enabled server ${f.server}`
    case 'release_server': return `released server ${f.server} from quarantine`
    case 'restart_server': return `asked the runtime to restart ${f.server}`
  }
}
