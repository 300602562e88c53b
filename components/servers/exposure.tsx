import type { RowDetail } from '@/lib/dashboard/row-details'
import { Pill } from '@/components/ui'
import { showInvisible } from '@/lib/approvals/findings'

type ExposureDetail = Extract<RowDetail, { kind: 'exposure' }>

/** The pins a release approves: exactly the definitions this review showed. */
export const shownPins = (detail: ExposureDetail) => Object.fromEntries(detail.tools.filter((t) => t.pin).map((t) => [t.name, t.pin!]))

/** What releasing a quarantined server would serve, tool by tool (the shared classifier's view), with findings. */
export function Exposure({ detail }: { detail: ExposureDetail }) {
  const served = detail.tools.filter((t) => t.after_release === 'callable').length
  if (detail.tools.length === 0) {
    return <p className="text-sm">No tools of <span className="font-mono">{detail.server}</span> are known yet{detail.inspectedAt === null ? ': inspect it to list them for review' : ''}. Releasing it now approves nothing: every tool it lists afterwards arrives pending.</p>
  }
  return (
    <div>
      <p className="mb-2 text-sm">Releasing <span className="font-mono">{detail.server}</span> from quarantine approves exactly these definitions and would serve {served} of its {detail.tools.length} tools{detail.inspectedAt !== null ? ` (listed by an inspection at ${new Date(detail.inspectedAt).toISOString().replace('T', ' ').slice(0, 19)} UTC)` : ''}. A tool that appears or changes afterwards arrives pending or changed:</p>
      <ul className="space-y-1 text-xs" aria-label={`Tools ${detail.server} would expose`}>
        {detail.tools.map((t) => (
          <li key={t.name} className="flex flex-wrap items-baseline gap-2">
            <span className="font-mono">{t.name}</span>
            <Pill tone={t.after_release === 'callable' ? 'warn' : 'muted'}>{t.after_release === 'callable' ? 'would be served' : `stays withheld: ${t.after_release}`}</Pill>
            {t.annotations && <span className="text-slate-600 dark:text-slate-300">{Object.entries(t.annotations).map(([k, v]) => `${k}=${String(v)}`).join(' ')}</span>}
            {t.description && <span className="text-slate-600 dark:text-slate-400">— {showInvisible(t.description)}</span>}
            {t.findings.map((f, i) => <Pill key={i} tone="bad" title={f.message}>{f.code}</Pill>)}
          </li>
        ))}
      </ul>
    </div>
  )
}
