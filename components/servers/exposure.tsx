import type { RowDetail } from '@/lib/dashboard/row-details'
import { Pill } from '@/components/ui'

/** What releasing a quarantined server would serve, tool by tool (the shared classifier's view). */
export function Exposure({ detail }: { detail: Extract<RowDetail, { kind: 'exposure' }> }) {
  const served = detail.tools.filter((t) => t.after_release === 'callable').length
  return (
    <div>
      <p className="mb-2 text-sm">Releasing <span className="font-mono">{detail.server}</span> from quarantine would serve {served} of its {detail.tools.length} tools:</p>
      <ul className="space-y-1 text-xs" aria-label={`Tools ${detail.server} would expose`}>
        {detail.tools.map((t) => (
          <li key={t.name} className="flex flex-wrap items-baseline gap-2">
            <span className="font-mono">{t.name}</span>
            <Pill tone={t.after_release === 'callable' ? 'warn' : 'muted'}>{t.after_release === 'callable' ? 'would be served' : `stays withheld: ${t.after_release}`}</Pill>
            {t.annotations && <span className="text-slate-500">{Object.entries(t.annotations).map(([k, v]) => `${k}=${String(v)}`).join(' ')}</span>}
            {t.description && <span className="text-slate-600 dark:text-slate-400">— {t.description}</span>}
          </li>
        ))}
      </ul>
    </div>
  )
}
