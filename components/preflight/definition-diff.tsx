import { lineDiff } from '@/lib/dashboard/diff'
import type { Definition } from '@/lib/dashboard/row-details'

const show = (d: Definition) => JSON.stringify({ description: d.description, input_schema: d.input_schema, output_schema: d.output_schema }, null, 2)
const styles = {
  same: 'text-slate-600 dark:text-slate-400',
  removed: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200',
  added: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200',
}
const marks = { same: ' ', removed: '-', added: '+' }

/** The approved definition against the one the server now offers (what a rug-pull would change). */
export function DefinitionDiff({ approved, current }: { approved: Definition; current: Definition }) {
  return (
    <div>
      <p className="mb-1 text-xs text-slate-600 dark:text-slate-400">
        <span className="font-mono text-red-700 dark:text-red-300">-</span> approved definition, <span className="font-mono text-emerald-700 dark:text-emerald-300">+</span> what the server offers now
      </p>
      <pre aria-label="definition diff" className="max-h-80 overflow-auto rounded border border-slate-200 text-xs dark:border-slate-800">
        {lineDiff(show(approved), show(current)).map((l, i) => (
          <div key={i} className={`px-2 ${styles[l.op]}`}><span aria-hidden className="select-none">{marks[l.op]} </span>{l.text}</div>
        ))}
      </pre>
    </div>
  )
}
