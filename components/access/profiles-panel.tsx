'use client'

import { useState } from 'react'
import { createProfileAction, deleteProfileAction, updateProfileAction } from '@/lib/actions/access'
import type { AccessOverview } from '@/lib/dashboard/access'
import { ActionButton } from '@/components/action-button'
import { Card, Empty, inputClass } from '@/components/ui'
import { ServerPicker } from './server-picker'

export function ProfilesPanel({ data }: { data: AccessOverview }) {
  const [name, setName] = useState('')
  const [servers, setServers] = useState<string[]>([])
  return (
    <div id="profiles" className="space-y-4">
      <Card title="Create a profile">
        <div className="space-y-3">
          <div>
            <label htmlFor="profile-name" className="block text-sm font-medium">Name</label>
            <input id="profile-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="ops" className={`mt-1 ${inputClass}`} />
          </div>
          <ServerPicker legend="Servers" servers={data.servers} value={servers} onChange={setServers} />
          <ActionButton action={createProfileAction} permission="admin" input={{ name, servers }} label="Create profile" variant="primary" onDone={() => { setName(''); setServers([]) }} />
        </div>
      </Card>
      <Card title="Profiles">
        {data.profiles.length === 0 ? <Empty>No profiles yet. A profile narrows what a token or request can reach; it never widens it.</Empty> : (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800">
            {data.profiles.map((p) => <ProfileRow key={p.name} profile={p} data={data} />)}
          </ul>
        )}
      </Card>
    </div>
  )
}

function ProfileRow({ profile: p, data }: { profile: AccessOverview['profiles'][number]; data: AccessOverview }) {
  const [servers, setServers] = useState(p.servers)
  const unsaved = [...servers].sort().join('\n') !== [...p.servers].sort().join('\n')
  const warning = p.pinnedBy.length ? ` Tokens pinned to it (${p.pinnedBy.join(', ')}) will then be denied everything.` : ''
  return (
    <li id={`profile-${p.name}`} data-testid={`profile-${p.name}`} className="scroll-mt-4 space-y-2 py-3 target:bg-amber-50 data-[targeted=true]:bg-amber-50 dark:target:bg-amber-950/40 dark:data-[targeted=true]:bg-amber-950/40">
      <div className="flex flex-wrap items-center gap-3">
        <span className="font-mono font-medium">{p.name}</span>
        {p.pinnedBy.length > 0 && <span className="text-xs text-slate-600 dark:text-slate-300">pinned by {p.pinnedBy.join(', ')}</span>}
        <span className="ml-auto"><ActionButton action={deleteProfileAction} permission="admin" input={{ name: p.name }} label="Delete" name={`Delete profile ${p.name}`} variant="danger" confirm={`Delete profile ${p.name}?${warning}`} /></span>
      </div>
      <ServerPicker legend={`Servers in ${p.name}`} servers={data.servers} value={servers} onChange={setServers} />
      <div className="flex flex-wrap items-start gap-3">
        <ActionButton action={updateProfileAction} permission="admin" input={{ name: p.name, servers }} label="Save servers" name={`Save servers of profile ${p.name}`} doneLabel={unsaved ? undefined : `Saved: ${p.name} reaches ${p.servers.length ? p.servers.join(', ') : 'no server'}`} />
        {unsaved && <span className="pt-2 text-xs text-amber-700 dark:text-amber-400">Unsaved changes</span>}
      </div>
    </li>
  )
}
