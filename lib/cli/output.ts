import type { PreflightData } from '@/lib/preflight/service'
import { exitCodes } from '@/lib/preflight/taxonomy'

/** How text is shown: in colour or not, and how wide it may be (undefined: as wide as it is). */
export interface Look { color: boolean; width?: number }

/**
 * stdout's look. Colour: never with NO_COLOR set (no-color.org), always with FORCE_COLOR, else
 * only on a terminal. Width: the terminal's columns; output to a pipe or file is never cut, so
 * scripts always get whole lines.
 */
export function terminal(): Look {
  const env = process.env
  const color = env.NO_COLOR ? false : env.FORCE_COLOR && env.FORCE_COLOR !== '0' ? true : !!process.stdout.isTTY && env.TERM !== 'dumb'
  return { color, width: process.stdout.isTTY ? process.stdout.columns || undefined : undefined }
}

const SGR = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] } as const
export type Colour = keyof typeof SGR

export const paint = (look: Look, colour: Colour | undefined, s: string) =>
  look.color && colour && s ? `\x1b[${SGR[colour][0]}m${s}\x1b[${SGR[colour][1]}m` : s

/** The colour a status word is shown in, wherever it appears. */
export function statusColour(s: string): Colour | undefined {
  if (['ok', 'ready', 'callable', 'approved', 'connected', 'enabled'].includes(s)) return 'green'
  if (['warn', 'degraded_retryable', 'pending', 'tool_pending_approval', 'changed', 'starting', 'initializing'].includes(s)) return 'yellow'
  if (['fail', 'unavailable', 'blocked', 'unknown_ids', 'denied', 'error', 'unhealthy', 'disabled'].includes(s) || s.startsWith('server_') || s.startsWith('tool_')) return 'red'
  return undefined
}

/** Cut a string to `max` characters, marking the cut. */
export const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`)

/**
 * A plain aligned table; the last column may be long, and is cut to fit a narrow terminal.
 * `colours` picks a colour per cell (by column index); padding is computed on the plain text.
 */
export function table(headers: string[], rows: string[][], look: Look = terminal(), colours?: (col: number, cell: string) => Colour | undefined): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const last = headers.length - 1
  const fixed = widths.slice(0, last).reduce((a, w) => a + w + 2, 0)
  const room = look.width === undefined ? Infinity : Math.max(10, look.width - fixed)
  const line = (cells: string[], head: boolean) => cells.map((c, i) => {
    const text = i === last ? clip(c, room) : c
    const shown = paint(look, head ? 'bold' : colours?.(i, c), text)
    return i === last ? shown : shown + ' '.repeat(widths[i] - c.length)
  }).join('  ').trimEnd()
  return [line(headers, true), ...rows.map((r) => line(r, false))].join('\n')
}

/**
 * Wrap prose to `width`: the first line starts at column `start` (after a label), the following
 * lines are indented by `indent` spaces.
 */
export function wrap(text: string, width: number | undefined, indent: number, start = indent): string {
  if (width === undefined || text.length + start <= width) return text
  const lines: string[] = []
  let cur = ''
  for (const word of text.split(' ')) {
    const room = Math.max(20, width - (lines.length ? indent : start))
    if (cur && cur.length + 1 + word.length > room) {
      lines.push(cur)
      cur = word
    } else cur = cur ? `${cur} ${word}` : word
  }
  lines.push(cur)
  return lines.join(`\n${' '.repeat(indent)}`)
}

export function preflightTable(data: PreflightData, look: Look = terminal()): string {
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
    table(['ID', 'STATUS', 'REASON', 'RETRYABLE', 'ACTION', 'DETAIL'], rows, look, (col, cell) => (col === 1 || col === 2 ? statusColour(cell) : undefined)),
    ...(notes.length ? ['', 'Remediation:', ...notes] : []),
    '',
    `VERDICT: ${paint(look, statusColour(data.verdict), data.verdict)} (exit ${exitCodes[data.verdict]})  request_id: ${data.request_id}`,
  ].join('\n')
}
