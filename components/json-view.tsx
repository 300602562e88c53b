import { CopyButton } from './copy-button'

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g

/** Syntax-highlight already-serialized JSON text without changing a single character of it. */
function highlight(text: string): React.ReactNode[] {
  const out: React.ReactNode[] = []
  let last = 0
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index
    if (at > last) out.push(text.slice(last, at))
    const cls = m[1] ? (m[2] ? 'json-key' : 'json-string') : m[3] ? 'json-number' : 'json-literal'
    out.push(<span key={at} className={cls}>{m[1] ?? m[0]}</span>)
    if (m[2]) out.push(m[2])
    last = at + m[0].length
  }
  out.push(text.slice(last))
  return out
}

/**
 * Pretty JSON with a copy button. `text` is shown as given; `copy` (default: `text`) is what
 * the button copies, e.g. the exact wire bytes behind a pretty-printed view; `raw` is kept
 * on the element for anyone (a test, a devtools user) who needs those bytes.
 */
export function JsonView({ text, label, copy = text, raw, actions }: { text: string; label: string; copy?: string; raw?: string; actions?: React.ReactNode }) {
  return (
    <figure className="relative">
      <figcaption className="mb-1 flex items-center justify-between text-xs font-medium text-slate-500 dark:text-slate-400">
        <span>{label}</span>
        <span className="flex flex-wrap justify-end gap-1">{actions}<CopyButton text={copy} label="Copy JSON" name={`Copy JSON: ${label}`} /></span>
      </figcaption>
      <pre tabIndex={0} aria-label={label} data-raw={raw} className="max-h-[28rem] overflow-auto rounded border border-slate-200 bg-slate-50 p-3 text-xs leading-relaxed dark:border-slate-800 dark:bg-slate-950"><code>{highlight(text)}</code></pre>
    </figure>
  )
}
