'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import type { Exchange, Preview } from '@/lib/dashboard/preview'
import type { PreviewInput } from '@/lib/schemas/dashboard'
import { EXTENSION_ID } from '@/lib/schemas/extension'
import type { PreflightForm } from '@/lib/schemas/dashboard'
import { cliFor, curlFor } from '@/lib/dashboard/preview-commands'
import { CopyButton } from '@/components/copy-button'
import { ErrorNote } from '@/components/error-note'
import { JsonView } from '@/components/json-view'
import { inputClass } from '@/components/ui'

const DEBOUNCE_MS = 300
// state can change under the preview (the runtime reconnects, another operator approves): recompute it
const REFRESH_MS = 5000

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value)
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms)
    return () => clearTimeout(t)
  }, [value, ms])
  return v
}

const parse = (text: string): unknown => {
  try { return JSON.parse(text) } catch { return undefined }
}
const pretty = (text: string) => {
  const v = parse(text)
  return v === undefined ? text : JSON.stringify(v, null, 2)
}

/** The part a client reads: Shape A's result facet, Shape B's tool facet, or the JSON-RPC error. */
function facetOf(response: string): { label: string; value: unknown } | null {
  const r = parse(response) as { result?: { _meta?: Record<string, unknown>; tool?: { _meta?: Record<string, unknown> } }; error?: unknown } | undefined
  if (!r) return null
  if (r.error) return { label: 'error', value: r.error }
  const facet = r.result?._meta?.[EXTENSION_ID] ?? r.result?.tool?._meta?.[EXTENSION_ID]
  return facet === undefined ? null : { label: 'facet', value: facet }
}

function ExchangeView({ title, x, token, cli }: { title: string; x: Exchange; token: string | null; cli?: string }) {
  const headers = Object.entries(x.headers).map(([k, v]) => `${k}: ${v}`).join('\n')
  const facet = facetOf(x.response)
  const actions = (
    <>
      <CopyButton text={curlFor(window.location.origin, x, token)} label="Copy as curl" name={`Copy as curl: ${title} request`} />
      {cli && <CopyButton text={cli} label="Copy as CLI" name={`Copy as CLI: ${title} check`} />}
    </>
  )
  return (
    <div className="space-y-2" data-testid={`preview-${title}`}>
      <p className="font-mono text-xs">POST {x.endpoint}</p>
      <pre tabIndex={0} className="overflow-x-auto text-[11px] text-slate-600 dark:text-slate-300">{headers}</pre>
      <JsonView label={`${title} request`} text={pretty(x.request)} copy={x.request} raw={x.request} actions={actions} />
      {facet && <JsonView label={`${title} response ${facet.label}`} text={JSON.stringify(facet.value, null, 2)} />}
      <details>
        <summary className="cursor-pointer text-xs text-sky-700 dark:text-sky-300">Whole response (HTTP {x.status})</summary>
        <div className="mt-2"><JsonView label={`${title} response`} text={pretty(x.response)} copy={x.response} raw={x.response} /></div>
      </details>
    </div>
  )
}

/** Open on a wide screen; on a phone it starts folded below the results. */
function useWide(): boolean {
  const [wide, setWide] = useState(true)
  useEffect(() => setWide(window.matchMedia('(min-width: 768px)').matches), [])
  return wide
}

/**
 * Live `_meta` preview below the results: what /mcp answers right now for these ids, filters,
 * tier and profile — Shape A (tools/list + rider) and Shape B (tools/resolve of one id).
 * Computed by the real MCP code in a rolled-back transaction, so it is never recorded; it is
 * computed again when the form changes, after every check and fix, and every few seconds.
 */
export function MetaPreview({ form }: { form: PreflightForm }) {
  const [era, setEra] = useState<PreviewInput['era']>('modern')
  const [resolve, setResolve] = useState<string | null>(null)
  const wide = useWide()
  const target = resolve !== null && form.ids.includes(resolve) ? resolve : form.ids[0] ?? null
  const input: PreviewInput = useDebounced({ ids: form.ids, token: form.token, profile: form.profile, policy: form.policy, era, resolve: target }, DEBOUNCE_MS)
  const q = useQuery({
    queryKey: ['mcp-preview', input],
    queryFn: async () => {
      const res = await fetch('/api/dashboard/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) })
      const body = await res.json()
      if (!res.ok) throw Object.assign(new Error(body.error), { fix: body.fix as string })
      return body as Preview
    },
    placeholderData: keepPreviousData,
    enabled: input.ids.length > 0,
    refetchInterval: REFRESH_MS,
  })
  return (
    <details open={wide} className="group rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900" aria-label="Live _meta preview">
      <summary className="flex cursor-pointer flex-wrap items-center justify-between gap-2 text-base font-semibold">
        <span>Live <code>_meta</code> preview</span>
        <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100">unrecorded preview</span>
      </summary>
      <p className="mt-3 mb-3 text-xs text-slate-600 dark:text-slate-300">
        Exactly what <code>/mcp</code> would answer for this state, computed now and never recorded: its <code>request_id</code> is made up for this preview, so the activity log has no record of it.
        The MCP surface is always the agent tier: “Operator” previews an anonymous client; a token previews that token. The profile becomes the <code>/mcp/p/&lt;profile&gt;</code> path.
      </p>
      <div className="mb-3 flex flex-wrap items-end gap-3">
        <fieldset>
          <legend className="text-xs font-medium">Envelope</legend>
          <div className="mt-1 flex gap-3 text-sm">
            {(['modern', 'legacy'] as const).map((e) => (
              <label key={e} className="inline-flex items-center gap-1.5">
                <input type="radio" name="era" value={e} checked={era === e} onChange={() => setEra(e)} /> {e === 'modern' ? '2026-07-28' : '2025-11-25'}
              </label>
            ))}
          </div>
        </fieldset>
        <label className="text-xs font-medium">Shape B resolves
          <select value={target ?? ''} onChange={(e) => setResolve(e.target.value || null)} className={`mt-1 block max-w-full ${inputClass}`} disabled={!form.ids.length}>
            {form.ids.map((id) => <option key={id} value={id}>{id}</option>)}
          </select>
        </label>
        <span className="text-xs text-slate-600 dark:text-slate-300" aria-live="polite" data-testid="preview-status">
          {q.isFetching ? 'updating…' : q.dataUpdatedAt ? `computed at ${new Date(q.dataUpdatedAt).toLocaleTimeString()}` : ''}
        </span>
      </div>
      {form.ids.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-300">Add tool ids to see the request and the facet.</p>
        : q.isError ? <ErrorNote error={q.error.message} fix={(q.error as Error & { fix?: string }).fix} />
        : !q.data ? <p className="text-sm text-slate-600 dark:text-slate-300">Computing…</p>
        : q.data.refused ? <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="preview-refused">{q.data.refused}</p>
        : (
          <div className="grid grid-cols-1 gap-5 lg:grid-cols-2">
            <section aria-label="Shape A" className="min-w-0"><h3 className="mb-2 text-sm font-semibold">Shape A — <code>tools/list</code> with the rider</h3>{q.data.shapeA && <ExchangeView title="Shape A" x={q.data.shapeA} token={input.token} cli={cliFor(window.location.origin, input)} />}</section>
            <section aria-label="Shape B" className="min-w-0"><h3 className="mb-2 text-sm font-semibold">Shape B — <code>tools/resolve</code></h3>{q.data.shapeB && <ExchangeView title="Shape B" x={q.data.shapeB} token={input.token} />}</section>
          </div>
        )}
    </details>
  )
}
