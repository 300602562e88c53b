import type { FieldChange } from '@/lib/approvals/definition'
import type { ToolReview } from '@/lib/approvals/review'
import { showInvisible } from '@/lib/approvals/findings'
import { Pill } from '@/components/ui'

const json = (v: unknown) => showInvisible(JSON.stringify(v, null, 2))

/** What changed, field by field: − approved, + offered now (invisible characters shown). */
export function DefinitionDiff({ diff, label }: { diff: readonly FieldChange[]; label: string }) {
  return (
    <ul aria-label={label} className="mt-1 space-y-2">
      {diff.map((d) => (
        <li key={d.field}>
          <code className="text-xs font-semibold">{d.field}</code>
          <pre tabIndex={0} className="mt-0.5 overflow-auto rounded bg-red-50 px-2 py-1 text-xs text-red-900 dark:bg-red-950 dark:text-red-200"><span aria-hidden className="select-none">− </span>{json(d.before)}</pre>
          <pre tabIndex={0} className="mt-0.5 overflow-auto rounded bg-emerald-50 px-2 py-1 text-xs text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200"><span aria-hidden className="select-none">+ </span>{json(d.after)}</pre>
        </li>
      ))}
    </ul>
  )
}

/**
 * What an operator approves: the full definition agents will be served (invisible characters
 * shown), for a changed tool what changed field by field (− approved, + offered now), the review
 * findings, and the pin the approval is bound to.
 */
export function ToolReviewView({ review: r }: { review: ToolReview }) {
  return (
    <div className="space-y-3 text-sm" data-testid={`review-${r.id}`}>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Pin <code className="break-all">{r.pin ?? 'none'}</code> — approving accepts exactly this definition; any later change to it is <code>tool_changed</code>.
      </p>
      {r.diff.length > 0 && (
        <div>
          <h4 className="font-medium">Changed since it was approved</h4>
          <DefinitionDiff diff={r.diff} label={`What changed in ${r.id}`} />
        </div>
      )}
      <div>
        <h4 className="font-medium">Review findings</h4>
        {r.findings.length === 0 ? <p className="text-xs text-slate-600 dark:text-slate-400">None: no hidden characters, instructions to the model, sensitive paths, references to other servers or overlong text.</p> : (
          <ul aria-label={`Review findings for ${r.id}`} className="mt-1 space-y-1">
            {r.findings.map((f, i) => (
              <li key={i} className="text-xs"><Pill tone="warn">{f.code}</Pill> <code>{f.field}</code>: {f.message}</li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <h4 className="font-medium">On the tool surface</h4>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Costs {r.surface.tokens} tokens on every tools/list it is served in. {r.surface.closest.length === 0 ? 'No other served tool to compare it with.' : 'Reads most like:'}
        </p>
        {r.surface.closest.length > 0 && (
          <ul aria-label={`Tools that read like ${r.id}`} className="mt-1 space-y-0.5 text-xs">
            {r.surface.closest.map((p) => {
              const other = p.a === r.id ? p.b : p.a
              return <li key={other}><span className="font-mono">{other}</span> — overlap {p.score.toFixed(2)}{p.cross_server ? ' (another server)' : ''}</li>
            })}
          </ul>
        )}
        {r.surface.crossings.length > 0 && (
          <p role="alert" className="mt-1 rounded border border-red-300 bg-red-50 px-2 py-1 text-xs text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
            Over the description-overlap ceiling: {r.surface.crossings.join('; ')}. Approving asks you to confirm.
          </p>
        )}
      </div>
      <details open={r.diff.length === 0}>
        <summary className="cursor-pointer font-medium">Full definition, as agents are served it</summary>
        <pre tabIndex={0} aria-label={`Definition of ${r.id}`} className="mt-1 max-h-96 overflow-auto rounded border border-slate-200 p-2 text-xs dark:border-slate-800">{json({ ...r.definition, name: r.id })}</pre>
      </details>
    </div>
  )
}
