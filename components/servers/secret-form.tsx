'use client'

import { useCan } from '@/components/operator-context'
import { useState } from 'react'
import { setSecretAction } from '@/lib/actions/upstream'
import { ActionButton } from '@/components/action-button'
import { inputClass } from '@/components/ui'

/** Give the runtime a secret the server's transport needs (stored for the runtime; never shown again). */
export function SecretForm({ server, missing }: { server: string; missing: string[] }) {
  const [name, setName] = useState(missing[0] ?? '')
  const [value, setValue] = useState('')
  if (!useCan('admin')) return missing.length > 0 ? <p className="text-sm">Missing: {missing.map((m) => <code key={m} className="mr-1">{m}</code>)} (an admin sets secrets)</p> : null
  return (
    <div className="space-y-2">
      {missing.length > 0 && <p className="text-sm">Missing: {missing.map((m) => <code key={m} className="mr-1">{m}</code>)}</p>}
      <div className="flex flex-wrap items-end gap-2">
        <label className="text-sm font-medium">Secret name
          <input value={name} onChange={(e) => setName(e.target.value)} className={`mt-1 block font-mono ${inputClass}`} />
        </label>
        <label className="text-sm font-medium">Value
          <input type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} className={`mt-1 block ${inputClass}`} />
        </label>
        <ActionButton action={setSecretAction} permission="admin" input={{ server, name, value }} label="Save secret" variant="primary" onDone={() => setValue('')} />
      </div>
    </div>
  )
}
