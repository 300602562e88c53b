'use client'

/** Pick servers by checkbox; with `allowAll`, a "*" entry stands for every server (now and later). */
export function ServerPicker({ legend, servers, value, onChange, allowAll = false }: {
  legend: string; servers: string[]; value: string[]; onChange: (v: string[]) => void; allowAll?: boolean
}) {
  const all = value.includes('*')
  // names kept in the value that are no longer configured are still shown, so nothing is dropped silently
  const names = [...new Set([...servers, ...value.filter((v) => v !== '*')])]
  const toggle = (name: string, on: boolean) => onChange(on ? [...value, name] : value.filter((v) => v !== name))
  return (
    <fieldset>
      <legend className="text-sm font-medium">{legend}</legend>
      <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
        {allowAll && (
          <label className="inline-flex items-center gap-1.5 text-sm font-medium">
            <input type="checkbox" checked={all} onChange={(e) => onChange(e.target.checked ? ['*'] : [])} /> All servers (*)
          </label>
        )}
        {names.map((s) => (
          <label key={s} className="inline-flex items-center gap-1.5 font-mono text-sm">
            <input type="checkbox" disabled={all} checked={all || value.includes(s)} onChange={(e) => toggle(s, e.target.checked)} /> {s}
          </label>
        ))}
      </div>
      {allowAll && !all && value.length === 0 && <p className="mt-1 text-xs text-amber-700 dark:text-amber-300">No servers selected: this token will be denied everything.</p>}
    </fieldset>
  )
}
