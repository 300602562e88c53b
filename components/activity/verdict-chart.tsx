'use client'

import Link from 'next/link'
import { useEffect, useState } from 'react'
import type { CallGroup, ChartBar, VerdictChart as Chart } from '@/lib/dashboard/activity'
import type { ChartSpan } from '@/lib/schemas/activity'
import type { Verdict } from '@/lib/preflight/taxonomy'

// top to bottom in each bar: what needs an operator first, ready checks on the baseline
const series: { verdict: Verdict; label: string; colour: string }[] = [
  { verdict: 'blocked', label: 'blocked', colour: 'bg-red-600 dark:bg-red-500' },
  { verdict: 'unknown_ids', label: 'unknown ids', colour: 'bg-fuchsia-700 dark:bg-fuchsia-400' },
  { verdict: 'degraded_retryable', label: 'retryable', colour: 'bg-amber-400' },
  { verdict: 'ready', label: 'ready', colour: 'bg-emerald-500' },
]

// calls, bottom up: those that ran, then those that failed, were refused, are held, have no end yet
const callSeries: { group: CallGroup; label: string; colour: string }[] = [
  { group: 'pending', label: 'no outcome yet', colour: 'bg-slate-400' },
  { group: 'held', label: 'held', colour: 'bg-amber-400' },
  { group: 'refused', label: 'refused or not run', colour: 'bg-fuchsia-700 dark:bg-fuchsia-400' },
  { group: 'failed', label: 'failed', colour: 'bg-red-600 dark:bg-red-500' },
  { group: 'ok', label: 'ok', colour: 'bg-sky-600 dark:bg-sky-400' },
]

const HOUR = 3_600_000
const DAY = 24 * HOUR
const spanNames: Record<ChartSpan, string> = { '1h': 'last hour', '24h': 'last 24 hours', '7d': 'last 7 days', '30d': 'last 30 days' }
function widthName(w: number): string {
  const [n, unit] = w % DAY === 0 ? [w / DAY, 'day'] : w % HOUR === 0 ? [w / HOUR, 'hour'] : [w / 60_000, 'minute']
  return n === 1 ? unit : `${n} ${unit}s`
}
// a bar's height: its segments stacked (a check holding two classes stands in both)
const total = (b: ChartBar) => series.reduce((n, s) => n + b.counts[s.verdict], 0)

/**
 * Checks per interval, split by class, for the page's filters: one stacked bar per interval, a
 * check in each class it holds (so a segment is "checks holding blocked tools", and a check with
 * an unknown id and blocked tools is in two). Each segment is a link to the list narrowed to that
 * interval and verdict, the checks whose worst class it is. Then tool calls by how they ended.
 * Either row is left out when the filters select none of its records (a type of calls, a verdict).
 * Times show in UTC until the browser runs, then in the operator's zone (the server knows neither).
 */
export function VerdictChart({ chart, filters, spans }: { chart: Chart; filters: Record<string, string>; spans: SpanLink[] }) {
  const [local, setLocal] = useState(false)
  useEffect(() => setLocal(true), [])
  // the first render matches the server's exactly (fixed locale and zone); then the browser's own
  const [locale, timeZone] = local ? [undefined, undefined] : ['en-GB', 'UTC']
  const range = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone })
  const days = chart.bars.length > 0 && chart.bars[chart.bars.length - 1].end - chart.bars[0].start > DAY
  const tick = new Intl.DateTimeFormat(locale, chart.width >= DAY ? { month: 'short', day: 'numeric', timeZone }
    : days ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone } : { hour: '2-digit', minute: '2-digit', timeZone })
  const highest = Math.max(1, ...chart.bars.map(total))
  const tickEvery = Math.ceil(chart.bars.length / 6)
  const href = (b: ChartBar, verdict: Verdict) =>
    `/activity?${new URLSearchParams({ ...filters, from: new Date(b.start).toISOString(), to: new Date(b.end - 1).toISOString(), verdict })}`
  const sums = series.map((s) => ({ ...s, n: chart.bars.reduce((n, b) => n + b.counts[s.verdict], 0) }))
  // a label runs over the bars after it: one only where a whole stretch follows, every other one on a phone
  const ticks = (
    <div aria-hidden className="flex gap-px overflow-hidden text-[11px] text-slate-600 dark:text-slate-300">
      {chart.bars.map((b, i) => (
        <span key={b.start} className={`min-w-0 flex-1 overflow-visible whitespace-nowrap ${(i / tickEvery) % 2 === 1 ? 'max-sm:invisible' : ''}`}>
          {i % tickEvery === 0 && i + tickEvery <= chart.bars.length ? tick.format(b.start) : ''}
        </span>
      ))}
    </div>
  )
  return (
    <section aria-labelledby="verdict-chart-title" className="mb-4 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900">
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="verdict-chart-title" className="text-sm font-semibold">
          {chart.rows.checks ? 'Checks' : 'Tool calls'} per {widthName(chart.width)}, {chart.span ? spanNames[chart.span] : 'within From–To'}
          <span className="font-normal text-slate-600 dark:text-slate-300"> · times in {range.resolvedOptions().timeZone}</span>
        </h2>
        {chart.span && <SpanPicker current={chart.span} spans={spans} />}
      </div>
      {chart.rows.checks && (
        <>
          <p className="mb-1 text-xs text-slate-600 dark:text-slate-300" data-testid="chart-counts-what">Each check counts under every class it holds: one with an unknown id and blocked tools is in both. Ready: every id was ready.</p>
          <ul className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-label="Legend: checks in this range holding each class">
            {sums.map((s) => <li key={s.verdict} className="flex items-center gap-1"><span aria-hidden className={`inline-block size-3 rounded-sm ${s.colour}`} />{s.label} {s.n}</li>)}
          </ul>
          <div role="group" aria-label="Checks per interval (each bar's segments filter the list)" className="flex h-32 items-stretch gap-px border-b border-slate-300 dark:border-slate-600">
            {chart.bars.map((b) => {
              const when = range.formatRange(b.start, b.end)
              const parts = series.filter((s) => b.counts[s.verdict] > 0)
              // no total: a check holding two classes is in two segments
              const name = parts.length ? `${when}: checks holding ${parts.map((s) => `${s.label} ${b.counts[s.verdict]}`).join(', ')}` : `${when}: no checks`
              return (
                <div key={b.start} role="group" aria-label={name} title={name} data-testid="chart-bar" data-start={new Date(b.start).toISOString()} data-counts={JSON.stringify(b.counts)}
                  className="flex min-w-0 flex-1 flex-col justify-end">
                  {parts.map((s) => (
                    <Link key={s.verdict} href={href(b, s.verdict)} prefetch={false} data-verdict={s.verdict}
                      aria-label={`${b.counts[s.verdict]} ${s.label}, ${when}: show the checks whose worst class is ${s.label}`} title={`${b.counts[s.verdict]} holding ${s.label}, ${when}`}
                      style={{ height: `${(b.counts[s.verdict] / highest) * 100}%` }}
                      className={`block min-h-[3px] ${s.colour} hover:opacity-80 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-sky-600`} />
                  ))}
                </div>
              )
            })}
          </div>
          {ticks}
          {sums.every((s) => s.n === 0) && <p className="mt-2 text-xs text-slate-600 dark:text-slate-300">No checks in this range match the filters.</p>}
        </>
      )}
      {chart.rows.calls && <CallBars bars={chart.bars} range={range} title={chart.rows.checks ? 'Tool calls in the same intervals' : 'Tool calls by how they ended'} />}
      {!chart.rows.checks && ticks}
    </section>
  )
}

/** Tool calls in the same intervals, split by how they ended: a second row of bars with its own legend and scale. */
function CallBars({ bars, range, title }: { bars: ChartBar[]; range: Intl.DateTimeFormat; title: string }) {
  const calls = (b: ChartBar) => callSeries.reduce((n, s) => n + b.calls[s.group], 0)
  const highest = Math.max(1, ...bars.map(calls))
  // the legend lists what ran first, as people read it; the bars stack it at the bottom
  const sums = [...callSeries].reverse().map((s) => ({ ...s, n: bars.reduce((n, b) => n + b.calls[s.group], 0) }))
  return (
    <div className="mt-3">
      <h3 id="call-chart-title" className="mb-1 text-xs font-semibold">{title}</h3>
      <ul className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-label="Legend: tool calls in this range">
        {sums.map((s) => <li key={s.group} className="flex items-center gap-1"><span aria-hidden className={`inline-block size-3 rounded-sm ${s.colour}`} />{s.label} {s.n}</li>)}
      </ul>
      <div role="group" aria-labelledby="call-chart-title" className="flex h-20 items-stretch gap-px border-b border-slate-300 dark:border-slate-600">
        {bars.map((b) => {
          const when = range.formatRange(b.start, b.end)
          const n = calls(b)
          const parts = callSeries.filter((s) => b.calls[s.group] > 0)
          const name = n ? `${when}: ${n} call${n === 1 ? '' : 's'} — ${[...parts].reverse().map((s) => `${b.calls[s.group]} ${s.label}`).join(', ')}` : `${when}: no calls`
          return (
            <div key={b.start} role="img" aria-label={name} title={name} data-testid="call-bar" data-start={new Date(b.start).toISOString()} data-calls={n}
              className="flex min-w-0 flex-1 flex-col justify-end">
              {parts.map((s) => <span key={s.group} style={{ height: `${(b.calls[s.group] / highest) * 100}%` }} className={`block min-h-[3px] ${s.colour}`} />)}
            </div>
          )
        })}
      </div>
    </div>
  )
}

export interface SpanLink { span: ChartSpan; href: string }

/** The chart's range when no From–To filter is set: links, so each range can be shared. */
function SpanPicker({ current, spans }: { current: ChartSpan; spans: SpanLink[] }) {
  return (
    <nav aria-label="Chart range" className="flex gap-1 text-xs">
      {spans.map(({ span, href }) => (
        <Link key={span} href={href} prefetch={false} aria-current={span === current ? 'page' : undefined}
          className={`rounded px-2 py-0.5 ${span === current ? 'bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900' : 'text-sky-700 underline dark:text-sky-300'}`}>
          {span}
        </Link>
      ))}
    </nav>
  )
}
