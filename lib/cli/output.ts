import type { PreflightData } from '@/lib/gate/check'
import { exitCodes } from '@/lib/preflight/taxonomy'
import { INVISIBLE, showInvisible } from '@/lib/approvals/findings'
import { environment } from '@/lib/core/config'

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0')
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g

/**
 * Text from outside — agents, upstreams, files — as it may reach a terminal: every control
 * character (ESC, BEL, CR, backspace, the C1 set …) as a visible `\x1b`, so no escape sequence
 * (line erasing, OSC 52 clipboard writes, title changes) is ever acted on, and invisible and bidi
 * characters as `⟦U+202E⟧`. `lines` keeps newlines, for messages of several lines. toolgate's
 * own colours are added after (paint), never taken from the text.
 */
export function forTerminal(text: string, opts: { lines?: boolean } = {}): string {
  return showInvisible(text.replace(opts.lines ? CONTROLS_BUT_NEWLINE : CONTROLS, (c) => `\\x${hex(c, 2)}`))
}

const UNSAFE_IN_JSON = new RegExp(`${INVISIBLE.source}|[\\u007f-\\u009f]`, 'gu')

/**
 * JSON as the CLI prints it: JSON.stringify escapes C0 controls but leaves C1 controls and bidi
 * overrides raw; here they are `\u` escapes too, so the text is the same JSON value and nothing
 * in it acts on a terminal.
 */
export function toJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (c) => [...Array(c.length).keys()].map((i) => `\\u${hex(c[i], 4)}`).join(''))
}

/** How text is shown: in colour or not, and how wide it may be (undefined: as wide as it is). */
export interface Look { color: boolean; width?: number }

/**
 * stdout's look. Colour: never with NO_COLOR set (no-color.org), always with FORCE_COLOR, else
 * only on a terminal. Width: the terminal's columns; output to a pipe or file is never cut, so
 * scripts always get whole lines.
 */
export function terminal(): Look {
  const env = environment()
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
export function table(headers: string[], raw: string[][], look: Look = terminal(), colours?: (col: number, cell: string) => Colour | undefined): string {
  const rows = raw.map((r) => r.map((c) => forTerminal(c)))
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
    notes.push(`  ${forTerminal(t.id)}\n    fix: ${forTerminal(t.remediation)}${t.did_you_mean ? `\n    did you mean: ${forTerminal(t.did_you_mean.join(', '))}` : ''}`)
  }
  return [
    table(['ID', 'STATUS', 'REASON', 'RETRYABLE', 'ACTION', 'DETAIL'], rows, look, (col, cell) => (col === 1 || col === 2 ? statusColour(cell) : undefined)),
    ...(notes.length ? ['', 'Remediation:', ...notes] : []),
    '',
    `VERDICT: ${paint(look, statusColour(data.verdict), data.verdict)} (exit ${exitCodes[data.verdict]})  request_id: ${forTerminal(data.request_id)}`,
  ].join('\n')
}
