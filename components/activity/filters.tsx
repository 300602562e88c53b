'use client'

import { useRouter } from 'next/navigation'
import { activityTypes, surfaces } from '@/lib/core/activity'
import { verdicts } from '@/lib/preflight/taxonomy'
import { buttonClass, inputClass } from '@/components/ui'

type Values = Partial<Record<'q' | 'request_id' | 'type' | 'surface' | 'verdict' | 'server' | 'token' | 'person' | 'from' | 'to', string>>

const groupLabels: Record<string, string> = {
  preflight: 'Checks', tool: 'Tools', server: 'Servers', call: 'Held calls', token: 'Agent tokens', profile: 'Profiles',
  operator: 'Sign-in', operator_key: 'Sign-in', state: 'State', settings: 'Settings', activity: 'Activity log', pins: 'Pins', surface: 'Surface',
}
// the vocabulary, grouped by what a record is about ("tool.approved" → Tools), in the vocabulary's order
const typeGroups = activityTypes.reduce<{ label: string; types: string[] }[]>((groups, t) => {
  const label = groupLabels[t.split('.')[0]] ?? t.split('.')[0]
  const group = groups.find((g) => g.label === label)
  if (group) group.types.push(t)
  else groups.push({ label, types: [t] })
  return groups
}, [])

/**
 * The filters are the URL, so every view can be linked, bookmarked and reloaded. A plain GET form
 * (it works without script); with script, blank fields are left out so the URL names only what filters.
 */
export function ActivityFilters({ values, servers, tokens, people, span }: { values: Values; servers: string[]; tokens: string[]; people: string[]; span?: string }) {
  const router = useRouter()
  const select = (name: keyof Values, label: string, options: readonly string[]) => (
    <div>
      <label htmlFor={`f-${name}`} className="block text-xs font-medium">{label}</label>
      <select id={`f-${name}`} name={name} defaultValue={values[name] ?? ''} className={`mt-1 w-full ${inputClass}`}>
        <option value="">any</option>
        {options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    </div>
  )
  // a chart bar's bounds are exact to the millisecond: step "any" keeps them valid in a time field
  const text = (name: keyof Values, label: string, type = 'text') => (
    <div>
      <label htmlFor={`f-${name}`} className="block text-xs font-medium">{label}</label>
      <input id={`f-${name}`} name={name} type={type} step={type === 'datetime-local' ? 'any' : undefined} defaultValue={values[name] ?? ''} className={`mt-1 w-full ${inputClass}`} />
    </div>
  )
  return (
    <form method="get" action="/activity" aria-label="Activity filters" onSubmit={(e) => {
      e.preventDefault()
      const q = new URLSearchParams([...new FormData(e.currentTarget)].flatMap(([k, v]) => (typeof v === 'string' && v.trim() ? [[k, v.trim()]] : [])))
      router.push(q.size ? `/activity?${q}` : '/activity')
    }} className="mb-4 grid grid-cols-2 gap-3 rounded-lg border border-slate-200 bg-white p-3 md:grid-cols-4 xl:grid-cols-10 dark:border-slate-800 dark:bg-slate-900">
      <div className="col-span-2">{text('q', 'Search text', 'search')}</div>
      <div className="col-span-2">{text('request_id', 'Request id')}</div>
      <div>
        <label htmlFor="f-type" className="block text-xs font-medium">Type</label>
        <select id="f-type" name="type" defaultValue={values.type ?? ''} className={`mt-1 w-full ${inputClass}`}>
          <option value="">any</option>
          {typeGroups.map((g) => <optgroup key={g.label} label={g.label}>{g.types.map((t) => <option key={t} value={t}>{t}</option>)}</optgroup>)}
        </select>
      </div>
      {select('surface', 'Surface', surfaces)}
      {select('verdict', 'Verdict', verdicts)}
      {select('server', 'Server', servers)}
      {select('token', 'Agent token', tokens)}
      {select('person', 'Person', people)}
      {text('from', 'From', 'datetime-local')}
      {text('to', 'To', 'datetime-local')}
      {span && <input type="hidden" name="span" value={span} />}
      <div className="col-span-2 flex flex-wrap items-end gap-2 md:col-span-4 xl:col-span-10">
        <button type="submit" className={buttonClass('primary')}>Apply filters</button>
        <a href="/activity" className={buttonClass()}>Clear</a>
      </div>
    </form>
  )
}
