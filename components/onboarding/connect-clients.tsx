'use client'

import { useState, useTransition } from 'react'
import { createTokenAction } from '@/lib/actions/access'
import type { AccessOverview } from '@/lib/dashboard/access'
import { clientSnippets } from '@/lib/dashboard/connect'
import { ServerPicker } from '@/components/access/server-picker'
import { CopyButton } from '@/components/copy-button'
import { ErrorNote } from '@/components/error-note'
import { Button, Card, inputClass } from '@/components/ui'

const PLACEHOLDER = '<agent token>'

/**
 * The token for the snippets: a new one made here (its secret is in this page only, as on the
 * Tokens page) or one pasted. It stays in the page: nothing sends it anywhere but into the text.
 */
function TokenSource({ access, onToken }: { access: AccessOverview; onToken: (t: string) => void }) {
  const [name, setName] = useState('')
  const [servers, setServers] = useState<string[]>(['*'])
  const [failure, setFailure] = useState<{ error: string; fix: string } | null>(null)
  const [created, setCreated] = useState<string | null>(null)
  const [pending, start] = useTransition()
  return (
    <Card title="1. The agent token">
      <form aria-label="Create a token for this client" className="space-y-3" onSubmit={(e) => {
        e.preventDefault()
        start(async () => {
          const r = await createTokenAction({ name, scope: { allowedServers: servers, profilePin: null } })
          setFailure(r.ok ? null : r)
          if (r.ok) { setCreated(r.data.name); onToken(r.data.token) }
        })
      }}>
        <label className="block text-sm font-medium">New token&apos;s name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="cursor-laptop" className={`mt-1 block ${inputClass}`} />
        </label>
        <ServerPicker legend="Servers it may use" allowAll servers={access.servers} value={servers} onChange={setServers} />
        <Button type="submit" variant="primary" disabled={pending}>{pending ? 'Creating…' : 'Create token and fill it in'}</Button>
        {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
        {created && <p role="status" className="text-sm">Token “{created}” created and filled in below. Copy a snippet now: the secret is stored only as a hash and is not shown again.</p>}
      </form>
      <label className="mt-4 block text-sm font-medium">…or paste a token you have
        <input type="password" autoComplete="off" onChange={(e) => onToken(e.target.value.trim())} placeholder="tg_at_…" className={`mt-1 block w-full font-mono ${inputClass}`} />
      </label>
    </Card>
  )
}

export function ConnectClients({ origin, access, exampleTool }: { origin: string; access: AccessOverview; exampleTool: string }) {
  const [token, setToken] = useState('')
  const [profile, setProfile] = useState('')
  const url = `${origin}/mcp${profile ? `/p/${encodeURIComponent(profile)}` : ''}`
  const snippets = clientSnippets({ url, token: token || PLACEHOLDER, tool: exampleTool })
  return (
    <div className="space-y-4">
      <TokenSource access={access} onToken={setToken} />
      <Card title="2. The snippet for your client">
        {access.profiles.length > 0 && (
          <label className="mb-3 block text-sm font-medium">Narrow to a profile (optional)
            <select value={profile} onChange={(e) => setProfile(e.target.value)} className={`mt-1 block ${inputClass}`}>
              <option value="">None: every server the token may use</option>
              {access.profiles.map((p) => <option key={p.name} value={p.name}>{p.name}</option>)}
            </select>
          </label>
        )}
        {!token && <p className="mb-3 text-sm text-amber-800 dark:text-amber-300">No token yet: the snippets say {PLACEHOLDER} until you create or paste one.</p>}
        <div className="space-y-4">
          {snippets.map((s) => (
            <section key={s.id} aria-label={s.client} data-testid={`snippet-${s.id}`}>
              <div className="flex flex-wrap items-baseline gap-2">
                <h3 className="text-sm font-semibold">{s.client}</h3>
                <span className="text-xs text-slate-600 dark:text-slate-400">{s.where} · MCP {s.revision}</span>
                <span className="ml-auto"><CopyButton text={s.text} name={`Copy the ${s.client} snippet`} /></span>
              </div>
              <pre tabIndex={0} className="mt-1 overflow-auto rounded bg-slate-950 p-3 text-xs text-slate-100">{s.text}</pre>
            </section>
          ))}
        </div>
        <p className="mt-3 text-xs text-slate-600 dark:text-slate-400">Restart the client after adding it: it lists the ready tools as <code>server:tool</code>, plus <code>describe_tool</code>. toolgate sends no list_changed: refresh the server in the client after you approve or release something.</p>
      </Card>
    </div>
  )
}
