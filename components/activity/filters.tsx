import { activityTypes, surfaces } from '@/lib/activity/vocabulary'
import { verdicts } from '@/lib/preflight/taxonomy'
import { buttonClass, inputClass } from '@/components/ui'

type Values = Partial<Record<'request_id' | 'type' | 'surface' | 'verdict' | 'server' | 'from' | 'to', string>>

/** A plain GET form: the filters are the URL, so every view can be linked, bookmarked and reloaded. */
export function ActivityFilters({ values }: { values: Values }) {
  const select = (name: keyof Values, label: string, options: readonly string[]) => (
    <div>
      <label htmlFor={`f-${name}`} className="block text-xs font-medium">{label}</label>
      <select id={`f-${name}`} name={name} defaultValue={values[name] ?? ''} className={`mt-1 w-full ${inputClass}`}>
        <option value="">any</option>
        {options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    </div>
  )
  const text = (name: keyof Values, label: string, type = 'text') => (
    <div>
      <label htmlFor={`f-${name}`} className="block text-xs font-medium">{label}</label>
      <input id={`f-${name}`} name={name} type={type} defaultValue={values[name] ?? ''} className={`mt-1 w-full ${inputClass}`} />
    </div>
  )
  return (
    <form method="get" action="/activity" aria-label="Activity filters" className="mb-4 grid grid-cols-2 gap-3 rounded-lg border border-slate-200 bg-white p-3 md:grid-cols-4 xl:grid-cols-8 dark:border-slate-800 dark:bg-slate-900">
      <div className="col-span-2">{text('request_id', 'Request id')}</div>
      {select('type', 'Type', activityTypes)}
      {select('surface', 'Surface', surfaces)}
      {select('verdict', 'Verdict', verdicts)}
      {text('server', 'Server')}
      {text('from', 'From', 'datetime-local')}
      {text('to', 'To', 'datetime-local')}
      <div className="col-span-2 flex items-end gap-2 md:col-span-4 xl:col-span-8">
        <button type="submit" className={buttonClass('primary')}>Apply filters</button>
        <a href="/activity" className={buttonClass()}>Clear</a>
      </div>
    </form>
  )
}
