import Link from 'next/link'
import type { SetupStep } from '@/lib/dashboard/first-run'
import { Card } from '@/components/ui'

/** The first-run checklist: each step a link to where it is done, ticked once it is. */
export function FirstRun({ steps }: { steps: SetupStep[] }) {
  const next = steps.find((s) => !s.done)
  return (
    <Card className="mb-4" title="Get started">
      <ol aria-label="First-run checklist" className="space-y-2 text-sm">
        {steps.map((s, i) => (
          <li key={s.id} data-testid={`setup-${s.id}`} data-done={s.done} className="flex items-center gap-2">
            <span aria-hidden className={`inline-flex h-5 w-5 items-center justify-center rounded-full text-xs ${s.done ? 'bg-emerald-600 text-white' : 'border border-slate-400'}`}>{s.done ? '✓' : i + 1}</span>
            <Link href={s.href} className={s === next ? 'font-medium text-sky-700 underline dark:text-sky-300' : 'text-slate-700 underline dark:text-slate-300'}>{s.label}</Link>
            <span className="sr-only">{s.done ? '(done)' : '(to do)'}</span>
          </li>
        ))}
      </ol>
    </Card>
  )
}
