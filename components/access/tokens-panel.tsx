'use client'

import { Allowed } from '@/components/operator-context'
import Link from 'next/link'
import { useState, useTransition } from 'react'
import { createTokenAction, revokeTokenAction, setTokenExpiryAction, updateTokenAction } from '@/lib/actions/access'
import type { TokenScope } from '@/lib/schemas/admin'
import type { AccessOverview } from '@/lib/dashboard/access'
import { tokenPage } from '@/lib/dashboard/fixes'
import { ActionButton } from '@/components/action-button'
import { CopyButton } from '@/components/copy-button'
import { ErrorNote } from '@/components/error-note'
import { Button, Card, Empty, inputClass, Pill } from '@/components/ui'
import { RelativeTime } from '@/components/relative-time'
import { ExpiryField, expiryMs } from './expiry-field'
import { RotateToken } from './rotate-token'
import { ServerPicker } from './server-picker'

type Failure = { error: string; fix: string }

function ScopeFields({ scope, onChange, data }: { scope: TokenScope; onChange: (s: TokenScope) => void; data: AccessOverview }) {
  return (
    <>
      <ServerPicker legend="Allowed servers" allowAll servers={data.servers} value={scope.allowedServers} onChange={(allowedServers) => onChange({ ...scope, allowedServers })} />
      <div>
        <label className="block text-sm font-medium">Profile pin
          <select value={scope.profilePin ?? ''} onChange={(e) => onChange({ ...scope, profilePin: e.target.value || null })} className={`mt-1 block ${inputClass}`}>
            <option value="">None</option>
            {data.profiles.map((p) => <option key={p.name} value={p.name}>{p.name}</option>)}
          </select>
        </label>
      </div>
    </>
  )
}

/** "expires in 3 days" / "expired 2 hours ago" / "never expires", and "last used …" / "never used". */
function TokenTimes({ token: t }: { token: AccessOverview['tokens'][number] }) {
  return (
    <>
      <span data-testid="token-expiry" data-expired={t.expired} className="text-xs text-slate-600 dark:text-slate-400">
        {t.expiresAt === null ? 'never expires' : t.expired ? <Pill tone="bad">expired <RelativeTime iso={t.expiresAt} /></Pill> : <>expires <RelativeTime iso={t.expiresAt} /></>}
      </span>
      <span data-testid="token-last-used" className="text-xs text-slate-600 dark:text-slate-400">
        {t.lastUsedAt === null ? 'never used' : <>last used <RelativeTime iso={t.lastUsedAt} /></>}
      </span>
    </>
  )
}

export function TokensPanel({ data, anonymousProfile }: { data: AccessOverview; anonymousProfile: string | null }) {
  const [name, setName] = useState('')
  const [scope, setScope] = useState<TokenScope>({ allowedServers: [], profilePin: null })
  const [expires, setExpires] = useState('')
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [pending, start] = useTransition()
  return (
    <div className="space-y-4">
      <Card title="Create an agent token">
        <form aria-label="Create an agent token" className="space-y-3" onSubmit={(e) => {
          e.preventDefault()
          start(async () => {
            const r = await createTokenAction({ name, scope, expiresAt: expiryMs(expires) })
            if (r.ok) { setCreated(r.data); setFailure(null); setName(''); setScope({ allowedServers: [], profilePin: null }); setExpires('') } else setFailure(r)
          })
        }}>
          <div>
            <label htmlFor="token-name" className="block text-sm font-medium">Name</label>
            <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="nightly-sync" className={`mt-1 ${inputClass}`} />
          </div>
          <ScopeFields scope={scope} onChange={setScope} data={data} />
          <ExpiryField id="token-expires" value={expires} onChange={setExpires} />
          <Allowed permission="admin"><Button type="submit" variant="primary" disabled={pending}>{pending ? 'Creating…' : 'Create token'}</Button></Allowed>
          {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
        </form>
        {created && (
          <div role="status" className="mt-4 rounded border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950">
            <p className="font-medium">Token “{created.name}” created. Copy it now: it is stored only as a hash and will not be shown again.</p>
            <p className="mt-2 flex flex-wrap items-center gap-2"><code data-testid="new-token" className="break-all rounded bg-white px-2 py-1 dark:bg-slate-900">{created.token}</code><CopyButton text={created.token} label="Copy token" /></p>
          </div>
        )}
      </Card>
      <Card title="Agent tokens">
        {data.tokens.length === 0 ? <Empty>No agent tokens yet: an agent without one is refused (401){anonymousProfile ? `, except on this machine (loopback), where it gets the anonymous profile ${anonymousProfile}` : ''}. Create one above, or on <Link className="underline" href="/connect">Connect a client</Link>.</Empty> : (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800">
            {data.tokens.map((t) => <TokenRow key={t.name} token={t} data={data} />)}
          </ul>
        )}
      </Card>
    </div>
  )
}

export function TokenRow({ token: t, data }: { token: AccessOverview['tokens'][number]; data: AccessOverview }) {
  const [editing, setEditing] = useState(false)
  const [scope, setScope] = useState<TokenScope>({ allowedServers: t.allowedServers, profilePin: t.profilePin })
  const [expires, setExpires] = useState('')
  return (
    <li id={`token-${t.name}`} data-testid={`token-${t.name}`} className="scroll-mt-4 py-3 target:bg-amber-50 dark:target:bg-amber-950/40">
      <div className="flex flex-wrap items-center gap-3">
        <Link className="font-mono font-medium text-sky-700 underline dark:text-sky-300" href={tokenPage(t.name)}>{t.name}</Link>
        <span className="text-xs text-slate-600 dark:text-slate-400">servers: {t.allowedServers.length ? t.allowedServers.join(', ') : 'none'}</span>
        <span className="text-xs text-slate-600 dark:text-slate-400">pin: {t.profilePin ?? 'none'}</span>
        {t.pinDangling && <Pill tone="bad" title="the pinned profile was deleted: this token is denied everything">pinned profile missing</Pill>}
        <TokenTimes token={t} />
        <span className="ml-auto flex flex-wrap gap-2">
          <Link className="text-sm text-sky-700 underline dark:text-sky-300" href={`/preflight?token=${encodeURIComponent(t.name)}`} aria-label={`Preflight as this token (${t.name})`}>Preflight as this token</Link>
          <Allowed permission="admin"><Button aria-expanded={editing} aria-label={`${editing ? 'Close' : 'Edit scope and expiry of'} token ${t.name}`} onClick={() => setEditing(!editing)}>{editing ? 'Close' : 'Edit scope and expiry'}</Button></Allowed>
          <Allowed permission="admin"><RotateToken name={t.name} expired={t.expired} /></Allowed>
          <ActionButton action={revokeTokenAction} permission="admin" input={{ name: t.name }} label="Revoke" name={`Revoke token ${t.name}`} variant="danger" confirm={`Revoke ${t.name}? Agents using it are refused at once.`} />
        </span>
      </div>
      {editing && (
        <div className="mt-3 space-y-3 rounded border border-slate-200 p-3 dark:border-slate-800">
          <ScopeFields scope={scope} onChange={setScope} data={data} />
          <ActionButton action={updateTokenAction} permission="admin" input={{ name: t.name, scope }} label="Save scope" name={`Save scope of token ${t.name}`} variant="primary" onDone={() => setEditing(false)} />
          <div className="flex flex-wrap items-end gap-2 border-t border-slate-200 pt-3 dark:border-slate-800">
            <ExpiryField id={`token-expires-${t.name}`} value={expires} onChange={setExpires} />
            <ActionButton action={setTokenExpiryAction} permission="admin" input={{ name: t.name, expiresAt: expiryMs(expires) }} label="Save expiry" name={`Save expiry of token ${t.name}`} />
            {t.expiresAt !== null && <ActionButton action={setTokenExpiryAction} permission="admin" input={{ name: t.name, expiresAt: null }} label="Never expire" name={`Make token ${t.name} never expire`} />}
          </div>
        </div>
      )}
    </li>
  )
}
