import type { RowDetail } from '@/lib/dashboard/row-details'
import { Pill } from '@/components/ui'
import { showInvisible } from '@/lib/approvals/findings'
import { FindingList } from '@/components/approvals/tool-review'

type ExposureDetail = Extract<RowDetail, { kind: 'exposure' }>

/** What releasing a quarantined server would serve, tool by tool (the shared classifier's view): each tool's findings and full definition, in the open. */
export function Exposure({ detail }: { detail: ExposureDetail }) {
  const served = detail.tools.filter((t) => t.after_release === 'callable').length
  if (detail.tools.length === 0) {
    return <p className="text-sm">No tools of <span className="font-mono">{detail.server}</span> are known yet{detail.inspectedAt === null ? ': inspect it to list them for review' : ''}. Releasing it now approves nothing: every tool it lists afterwards arrives pending.</p>
  }
  return (
    <div>
      <p className="mb-2 text-sm">Releasing <span className="font-mono">{detail.server}</span> from quarantine approves exactly these definitions and would serve {served} of its {detail.tools.length} tools{detail.inspectedAt !== null ? ` (listed by an inspection at ${new Date(detail.inspectedAt).toISOString().replace('T', ' ').slice(0, 19)} UTC)` : ''}. A tool that appears or changes afterwards arrives pending or changed:</p>
      <ul className="space-y-3 text-xs" aria-label={`Tools ${detail.server} would expose`}>
        {detail.tools.map((t) => (
          <li key={t.name} data-testid={`exposed-${t.name}`} className="rounded border border-slate-200 p-2 dark:border-slate-800">
            <div className="flex flex-wrap items-baseline gap-2">
              <span className="font-mono font-medium">{showInvisible(t.name)}</span>
              <Pill tone={t.after_release === 'callable' ? 'warn' : 'muted'}>{t.after_release === 'callable' ? 'would be served' : `stays withheld: ${t.after_release}`}</Pill>
              {t.annotations && <span className="text-slate-600 dark:text-slate-300">{Object.entries(t.annotations).map(([k, v]) => `${k}=${String(v)}`).join(' ')}</span>}
            </div>
            {t.description && <p className="mt-1 text-slate-600 dark:text-slate-400">{showInvisible(t.description)}</p>}
            {t.findings.length > 0
              ? <FindingList findings={t.findings} label={`Review findings for ${detail.server}:${t.name}`} />
              : <p className="mt-1 text-slate-600 dark:text-slate-400">Findings: none.</p>}
            <pre tabIndex={0} aria-label={`Definition of ${detail.server}:${t.name}`} className="mt-1 max-h-64 overflow-auto rounded bg-slate-50 p-2 dark:bg-slate-950">{showInvisible(JSON.stringify(t.definition, null, 2))}</pre>
          </li>
        ))}
      </ul>
    </div>
  )
}
