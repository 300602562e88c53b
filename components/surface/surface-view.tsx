import Link from 'next/link'
import { ToolId } from '@/components/tool-id'
import { Card, Empty, Pill } from '@/components/ui'
import type { PairView, SurfacePage } from '@/lib/dashboard/surface'
import { terms } from '@/lib/surface/overlap'

const score = (s: number) => s.toFixed(2)

/** The words of a description, the ones the other tool shares marked (matched as they are scored). */
function Highlighted({ text, shared }: { text: string; shared: string[] }) {
  const set = new Set(shared)
  return (
    <>
      {text.split(/([A-Za-z0-9]+)/).map((part, i) =>
        i % 2 === 1 && terms(part).some((t) => set.has(t))
          ? <mark key={i} className="rounded bg-amber-200 px-0.5 text-slate-900 dark:bg-amber-300">{part}</mark>
          : part)}
    </>
  )
}

function PairCard({ pair, ceiling }: { pair: PairView; ceiling: number | null }) {
  const over = ceiling !== null && pair.score > ceiling
  return (
    <li className="rounded border border-slate-200 p-3 dark:border-slate-800" aria-label={`${pair.a} and ${pair.b}, overlap ${score(pair.score)}`}>
      <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
        <span className="font-semibold">overlap {score(pair.score)}</span>
        {pair.cross_server && <Pill tone="warn" title="A tool that reads like another server's is how a shadowing server hides">across servers</Pill>}
        {over && <Pill tone="bad">over the ceiling {ceiling}</Pill>}
        <span className="text-xs text-slate-600 dark:text-slate-400">shared: {pair.shared.join(', ') || 'only rarer word forms'}</span>
      </div>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        {([[pair.a, pair.a_text], [pair.b, pair.b_text]] as const).map(([id, text]) => (
          <div key={id}>
            <div className="font-mono text-xs font-semibold [overflow-wrap:anywhere]">{id}</div>
            <p className="mt-1 text-sm"><Highlighted text={`${id.slice(id.indexOf(':') + 1)} — ${text}`} shared={pair.shared} /></p>
          </div>
        ))}
      </div>
    </li>
  )
}

/** Horizontal bars, drawn on the server: one per item, labelled with its value. */
function BarChart({ title, rows, unit }: { title: string; rows: { label: string; value: number }[]; unit: string }) {
  const max = Math.max(1, ...rows.map((r) => r.value))
  const rowHeight = 22
  const labelWidth = 220
  return (
    <figure>
      <figcaption className="mb-1 text-sm font-medium">{title}</figcaption>
      <svg role="img" aria-label={`${title}: ${rows.map((r) => `${r.label} ${r.value} ${unit}`).join(', ')}`} viewBox={`0 0 640 ${rows.length * rowHeight}`} className="w-full">
        {rows.map((r, i) => {
          const w = Math.max(2, ((640 - labelWidth - 70) * r.value) / max)
          const y = i * rowHeight
          return (
            <g key={r.label}>
              <title>{`${r.label}: ${r.value} ${unit}`}</title>
              <text x={labelWidth - 6} y={y + 15} textAnchor="end" className="fill-slate-700 font-mono text-[11px] dark:fill-slate-300">{r.label.length > 32 ? `${r.label.slice(0, 31)}…` : r.label}</text>
              <rect x={labelWidth} y={y + 4} width={w} height={rowHeight - 8} rx={2} className="fill-sky-600 dark:fill-sky-400" />
              <text x={labelWidth + w + 6} y={y + 15} className="fill-slate-700 text-[11px] dark:fill-slate-300">{r.value}</text>
            </g>
          )
        })}
      </svg>
    </figure>
  )
}

export function SurfaceView({ page }: { page: SurfacePage & { unknown?: string } }) {
  const r = page.selected
  const m = r.max_overlap
  return (
    <div className="space-y-6">
      {page.unknown && <p role="alert" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm dark:border-amber-700 dark:bg-amber-950">No scope &ldquo;{page.unknown}&rdquo; exists; showing the whole catalog.</p>}
      <Card title="Every scope">
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <thead className="text-left text-xs text-slate-600 dark:text-slate-400">
              <tr><th className="py-1 pr-3">Scope</th><th className="pr-3">Tools</th><th className="pr-3">Tokens per tools/list</th><th>Closest pair</th></tr>
            </thead>
            <tbody>
              {page.scopes.map((s) => (
                <tr key={s.key} className="border-t border-slate-100 aria-[current=true]:bg-sky-50 dark:border-slate-800 dark:aria-[current=true]:bg-sky-950" aria-current={s.key === r.key ? 'true' : undefined}>
                  <td className="py-1.5 pr-3"><Link href={`/surface?scope=${encodeURIComponent(s.key)}`} className="text-sky-700 underline-offset-2 hover:underline dark:text-sky-300">{s.label}</Link></td>
                  <td className="pr-3 tabular-nums">{s.tools}</td>
                  <td className="pr-3 tabular-nums">{s.list_tokens}</td>
                  <td className="min-w-56">
                    {s.max_overlap ? <>{score(s.max_overlap.score)} <span className="font-mono text-xs"><ToolId id={s.max_overlap.a} /> ~ <ToolId id={s.max_overlap.b} /></span></> : '—'}
                    {s.over && <> <Pill tone="bad">over the ceiling</Pill></>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
          Tokens: {r.encoding} (the GPT-4o tokenizer), of the JSON of one full tools/list, toolgate&apos;s describe_tool included.
          Ceiling: {page.ceiling === null ? 'none (report only; set max_description_overlap in Settings or with toolgate settings set)' : page.ceiling}.
        </p>
      </Card>

      <section aria-labelledby="scope-heading" className="space-y-4">
        <h2 id="scope-heading" className="text-lg font-semibold first-letter:uppercase">{r.label}</h2>
        <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3">
          <div className="rounded border border-slate-200 p-3 dark:border-slate-800"><dt className="text-xs text-slate-600 dark:text-slate-400">Tools served</dt><dd className="text-xl font-semibold tabular-nums">{r.tools}</dd></div>
          <div className="rounded border border-slate-200 p-3 dark:border-slate-800"><dt className="text-xs text-slate-600 dark:text-slate-400">Tokens per tools/list</dt><dd className="text-xl font-semibold tabular-nums">{r.list_tokens}</dd></div>
          <div className="rounded border border-slate-200 p-3 dark:border-slate-800"><dt className="text-xs text-slate-600 dark:text-slate-400">Closest pair</dt><dd className="text-xl font-semibold tabular-nums">{m ? score(m.score) : '—'}</dd></div>
        </dl>

        <Card title="Tools that read alike">
          {page.pairs.length === 0
            ? <Empty>No two tools in this scope read alike (no pair at or above 0.2).</Empty>
            : <ul className="space-y-3">{page.pairs.map((p) => <PairCard key={`${p.a}|${p.b}`} pair={p} ceiling={page.ceiling} />)}</ul>}
        </Card>

        {r.catalog.length > 0 && (
          <Card title="What each tool costs">
            <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
              <BarChart title="Heaviest tools (tokens each)" unit="tokens" rows={r.heaviest.map((h) => ({ label: h.id, value: h.tokens }))} />
              <BarChart title="Tokens per server" unit="tokens" rows={r.servers.map((s) => ({ label: `${s.name} (${s.tools})`, value: s.tokens }))} />
            </div>
          </Card>
        )}

        {page.changes.length > 0 && (
          <Card title="Before you change it">
            <ul className="space-y-1 text-sm">
              {page.changes.map((c) => (
                <li key={c.id}>
                  Withholding <Link href={`/servers/${encodeURIComponent(c.id.slice(0, c.id.indexOf(':')))}`} className="font-mono text-sky-700 hover:underline dark:text-sky-300">{c.id}</Link> (block or disable it)
                  {' '}saves <strong>{c.saves}</strong> tokens per list
                  {c.removes_closest ? <> and removes the closest pair{c.max_after ? <> (next closest: {score(c.max_after.score)}, {c.max_after.a} ~ {c.max_after.b})</> : null}</> : null}.
                </li>
              ))}
            </ul>
          </Card>
        )}
      </section>
    </div>
  )
}
