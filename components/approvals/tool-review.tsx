import type { DefinitionChange } from '@/lib/core/definition'
import type { DefinitionReview, ToolReview } from '@/lib/approvals/review'
import { showInvisible } from '@/lib/approvals/findings'
import type { Finding } from '@/lib/core/definition'
import type { Risk, SemanticChange } from '@/lib/approvals/semantic-diff'
import { Pill } from '@/components/ui'

const json = (v: unknown) => showInvisible(JSON.stringify(v, null, 2))
/** A tool's field (title, input_schema, …) or any other definition's: what changed, before and after. */
type FieldChange = DefinitionChange

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

const riskTone: Record<Risk, 'bad' | 'warn' | 'muted'> = { high: 'bad', medium: 'warn', low: 'muted' }

/**
 * What approving a change with high-risk parts asks first (undefined: nothing to ask): a change
 * that widens reach is the one a hurried "make it work" click must not wave through.
 */
export function highRiskQuestion(review: Pick<ToolReview, 'changes'>): string | undefined {
  const high = review.changes.filter((c) => c.risk === 'high')
  if (high.length === 0) return undefined
  return `${high.length === 1 ? '1 high-risk change' : `${high.length} high-risk changes`} (${high.map((c) => c.summary).join('; ')}): approve anyway?`
}

/** A tool's change by meaning, riskiest first: each with its risk, what it means, and where. */
export function SemanticChanges({ changes, label }: { changes: readonly SemanticChange[]; label: string }) {
  return (
    <ul aria-label={label} className="mt-1 space-y-1">
      {changes.map((c, i) => (
        <li key={i} data-risk={c.risk} className="text-xs">
          <Pill tone={riskTone[c.risk]}>{c.risk} risk</Pill> {showInvisible(c.summary)} <code className="text-slate-600 dark:text-slate-400">{c.path}</code>
        </li>
      ))}
    </ul>
  )
}

/** Findings in full, inline: the code, where it was found and what it means (never only a tooltip). */
export function FindingList({ findings, label }: { findings: readonly Finding[]; label: string }) {
  return (
    <ul aria-label={label} className="mt-1 space-y-1">
      {findings.map((f, i) => (
        <li key={i} className="text-xs"><Pill tone={f.code === 'widened_reach' ? 'bad' : 'warn'}>{f.code}</Pill> <code>{f.field}</code>: {f.message}</li>
      ))}
    </ul>
  )
}

/**
 * The review every definition gets before it is approved — a tool's, or a server's instructions,
 * prompt, resource or template: its pin, what changed field by field (− approved, + offered now),
 * the review findings, and the full definition (invisible characters shown). `children`: what a
 * kind adds before the definition (a tool's place on the surface).
 */
function ReviewBody({ id, pin, diff, changes, findings, definition, children }: {
  id: string; pin: string | null; diff: readonly FieldChange[]; changes?: readonly SemanticChange[]; findings: ToolReview['findings']; definition: unknown; children?: React.ReactNode
}) {
  return (
    <div className="space-y-3 text-sm" data-testid={`review-${id}`}>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Pin <code className="break-all">{pin ?? 'none'}</code> — approving accepts exactly this definition; any later change to it is a change to approve again.
      </p>
      {changes && changes.length > 0 ? (
        <div>
          <h4 className="font-medium">Changed since it was approved, riskiest first</h4>
          <SemanticChanges changes={changes} label={`What changed in ${id}`} />
          <details className="mt-1">
            <summary className="cursor-pointer text-xs">Field by field: − approved, + offered now</summary>
            <DefinitionDiff diff={diff} label={`Fields changed in ${id}`} />
          </details>
        </div>
      ) : diff.length > 0 && (
        <div>
          <h4 className="font-medium">Changed since it was approved</h4>
          <DefinitionDiff diff={diff} label={`What changed in ${id}`} />
        </div>
      )}
      <div>
        <h4 className="font-medium">Review findings</h4>
        {findings.length === 0
          ? <p className="text-xs text-slate-600 dark:text-slate-400">None: no hidden characters, instructions to the model, sensitive paths, references to other servers, overlong text{diff.length > 0 ? ' or widened reach' : ''}.</p>
          : <FindingList findings={findings} label={`Review findings for ${id}`} />}
      </div>
      {children}
      <details open={diff.length === 0}>
        <summary className="cursor-pointer font-medium">Full definition, as agents are served it once approved</summary>
        <pre tabIndex={0} aria-label={`Definition of ${id}`} className="mt-1 max-h-96 overflow-auto rounded border border-slate-200 p-2 text-xs dark:border-slate-800">{json(definition)}</pre>
      </details>
    </div>
  )
}

/** What an operator approves of a tool: the review, and what serving it costs on the tool surface. */
export function ToolReviewView({ review: r }: { review: ToolReview }) {
  return (
    <ReviewBody id={r.id} pin={r.pin} diff={r.diff} changes={r.changes} findings={r.findings} definition={{ ...r.definition, name: r.id }}>
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
    </ReviewBody>
  )
}

/** What an operator approves of a server's instructions, prompt, resource or template: the same review. */
export function DefinitionReviewView({ review: r }: { review: DefinitionReview }) {
  return <ReviewBody id={r.id} pin={r.pin} diff={r.diff} findings={r.findings} definition={r.definition} />
}
