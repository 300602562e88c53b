import type { PreflightData } from '@/lib/preflight/service'
import { exitCodes } from '@/lib/preflight/taxonomy'

/** A plain aligned table; the last column may be long. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd()
  return [line(headers), ...rows.map(line)].join('\n')
}

export function preflightTable(data: PreflightData): string {
  const rows: string[][] = []
  const notes: string[] = []
  for (const t of data.tools) {
    if (t.status === 'ready') {
      rows.push([t.id, 'ready', '', '', '', t.hash ? `pin ${t.hash}` : ''])
      continue
    }
    rows.push([t.id, 'unavailable', t.reason, String(t.retryable), t.action ?? '-', t.detail])
    notes.push(`  ${t.id}\n    fix: ${t.remediation}${t.did_you_mean ? `\n    did you mean: ${t.did_you_mean.join(', ')}` : ''}`)
  }
  return [
    table(['ID', 'STATUS', 'REASON', 'RETRYABLE', 'ACTION', 'DETAIL'], rows),
    ...(notes.length ? ['', 'Remediation:', ...notes] : []),
    '',
    `VERDICT: ${data.verdict} (exit ${exitCodes[data.verdict]})  request_id: ${data.request_id}`,
  ].join('\n')
}
