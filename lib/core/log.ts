import { format } from 'node:util'

/** Longest log line written, after escaping. */
export const LOG_LINE_MAX = 2_000

/**
 * One log line that cannot be forged or flooded: control characters (newlines above all)
 * become visible escapes (`\n`, `\r`, `\t`, `\u001b` …), and the line is cut to a bounded
 * length. Everything from a request that reaches a log goes through here.
 */
export function logLine(text: string, max = LOG_LINE_MAX): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    switch (c) {
      case '\n': return '\\n'
      case '\r': return '\\r'
      case '\t': return '\\t'
      default: return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
    }
  })
  return escaped.length > max ? `${escaped.slice(0, max)}… (${escaped.length - max} more characters)` : escaped
}

/** toolgate's one way to log a failure: to stderr, as one unforgeable line (logLine). */
export function logError(text: string, max = LOG_LINE_MAX): void {
  console.error(logLine(text, max))
}

/** A value quoted inside an error message: at most ~100 characters of it, escaped. */
export function quote(value: string, max = 100): string {
  const shown = logLine(value, max)
  return `"${shown}"`
}

/**
 * When the process reading toolgate's output exits, every write to that pipe fails (EPIPE).
 * Unhandled, each failure is itself reported — to the same closed pipe — in a loop that spins
 * forever. Nobody can read a closed pipe: stop writing to it, once, quietly.
 */
export function stopWritingToClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => {
      stream.write = (() => true) as typeof stream.write
    })
  }
}

/** The fields a JSON log line takes from where it is written: the request, the trace. */
export type LogFields = () => Record<string, string | undefined> | undefined

/**
 * Every line written through the console — toolgate's, Next.js's, a library's — as one JSON
 * object (TOOLGATE_LOG_FORMAT=json): time, level, the message (through logLine: escaped, bounded),
 * and `fields` (request_id, trace_id, span_id). One switch for all, so no call site changes.
 */
export function writeJsonLogs(fields: LogFields): void {
  const levels = { error: 'error', warn: 'warn', info: 'info', log: 'info', debug: 'debug' } as const
  for (const [method, level] of Object.entries(levels) as [keyof typeof levels, string][]) {
    const write = console[method].bind(console)
    console[method] = (...args: unknown[]) => {
      const line: Record<string, string | undefined> = { time: new Date().toISOString(), level, msg: logLine(format(...args), 8_000) }
      for (const [k, v] of Object.entries(fields() ?? {})) if (v !== undefined) line[k] = v
      write(JSON.stringify(line))
    }
  }
}
