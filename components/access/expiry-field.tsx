'use client'

import { inputClass } from '@/components/ui'

/** A datetime-local value (the browser's own zone) as ms; '' = never expires. NaN (unparsable) is left for the action to refuse. */
export const expiryMs = (local: string): number | null => (local === '' ? null : new Date(local).getTime())

export function ExpiryField({ id, value, onChange, empty = 'never' }: { id: string; value: string; onChange: (v: string) => void; empty?: string }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">Expires <span className="font-normal text-slate-600 dark:text-slate-400">(empty: {empty})</span></label>
      <input id={id} type="datetime-local" value={value} onChange={(e) => onChange(e.target.value)} className={`mt-1 ${inputClass}`} />
    </div>
  )
}
