import { taxonomy, type Reason } from '@/lib/preflight/taxonomy'
import { Pill, type Tone } from './ui'

/** Tones for set verdicts and per-tool reasons: the same meaning gets the same colour everywhere. */
export const verdictTone: Record<string, Tone> = { ready: 'good', degraded_retryable: 'warn', blocked: 'bad', unknown_ids: 'bad' }

export function VerdictPill({ verdict }: { verdict: string | null }) {
  return verdict ? <Pill tone={verdictTone[verdict] ?? 'bad'}>{verdict}</Pill> : null
}

/** The set verdict as the prominent badge, with the exit code the CLI would have used. */
export function VerdictBadge({ verdict, exitCode }: { verdict: string; exitCode: number }) {
  const tone = verdictTone[verdict] ?? 'bad'
  const ring = { good: 'border-emerald-400', warn: 'border-amber-400', bad: 'border-red-400', info: 'border-sky-400', muted: 'border-slate-400' }[tone]
  return (
    <div role="status" aria-label={`verdict ${verdict}, exit code ${exitCode}`} className={`inline-flex items-center gap-3 rounded-lg border-2 ${ring} px-4 py-2`}>
      <Pill tone={tone}><span className="text-base">{verdict}</span></Pill>
      <span className="font-mono text-sm text-slate-600 dark:text-slate-300">exit {exitCode}</span>
    </div>
  )
}

const CLASSES = [['unknown_ids', 'unknown id', 'unknown ids'], ['blocked', 'blocked', 'blocked'], ['degraded_retryable', 'retryable', 'retryable'], ['ready', 'ready', 'ready']] as const

/**
 * What the set verdict sums up, class by class ("1 unknown id · 9 blocked · 2 ready"): the set
 * takes its worst class, and an unknown id must not hide the blocked tools beside it.
 */
export function VerdictCounts({ tools }: { tools: readonly { status: string; reason?: string }[] }) {
  const classOf = (t: { status: string; reason?: string }) => (t.status === 'ready' || !t.reason ? 'ready' : taxonomy[t.reason as Reason]?.verdict ?? 'blocked')
  const counts = CLASSES.map(([verdict, one, many]) => {
    const n = tools.filter((t) => classOf(t) === verdict).length
    return n ? `${n} ${n === 1 ? one : many}` : null
  }).filter(Boolean)
  return <span data-testid="verdict-counts" className="text-sm font-normal text-slate-600 dark:text-slate-300">{counts.join(' · ')}</span>
}
