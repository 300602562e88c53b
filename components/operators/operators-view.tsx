'use client'

import { useState, useTransition } from 'react'
import { changeOperatorAction, createPersonalTokenAction, endSessionAction, inviteOperatorAction, revokePersonalTokenAction } from '@/lib/actions/operators'
import { ROLES, type Role } from '@/lib/auth/roles'
import { ActionButton } from '@/components/action-button'
import { Allowed } from '@/components/operator-context'
import { ErrorNote } from '@/components/error-note'
import { RelativeTime } from '@/components/relative-time'
import { Button, Card, inputClass } from '@/components/ui'

interface Person { username: string; name: string; email: string | null; role: string; enabled: boolean; source: string; hasPassword: boolean }
interface Session { id: string; username: string; method: string | null; lastSeenAt: string; address: string | null; userAgent: string | null }
interface Token { id: string; name: string; role: string; username: string; expiresAt: string; lastUsedAt: string | null; uses: number }

function Invite() {
  const [pending, start] = useTransition()
  const [result, setResult] = useState<{ ok: true; link: string } | { ok: false; error: string; fix: string } | null>(null)
  return (
    <form aria-label="Invite a person" className="flex flex-wrap items-end gap-2" onSubmit={(e) => {
      e.preventDefault()
      const f = new FormData(e.currentTarget)
      start(async () => {
        const r = await inviteOperatorAction({ username: String(f.get('username')), name: String(f.get('name')), email: String(f.get('email') || '') || null, role: String(f.get('role')) as Role })
        setResult(r.ok ? { ok: true, link: `${location.origin}${r.data.path}` } : r)
      })
    }}>
      <label className="text-sm">Username<input name="username" required className={`mt-1 block ${inputClass}`} /></label>
      <label className="text-sm">Name<input name="name" required className={`mt-1 block ${inputClass}`} /></label>
      <label className="text-sm">E-mail (optional)<input name="email" type="email" className={`mt-1 block ${inputClass}`} /></label>
      <label className="text-sm">Role<select name="role" defaultValue="viewer" className={`mt-1 block ${inputClass}`}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select></label>
      <Button type="submit" variant="primary" disabled={pending}>{pending ? 'Inviting…' : 'Invite'}</Button>
      {result?.ok && <p role="status" className="w-full text-sm">Send this link (it works once, for 72 hours; it is not shown again): <code className="break-all" data-testid="invitation-link">{result.link}</code></p>}
      {result && !result.ok && <ErrorNote error={result.error} fix={result.fix} />}
    </form>
  )
}

function NewToken() {
  const [pending, start] = useTransition()
  const [result, setResult] = useState<{ ok: true; token: string } | { ok: false; error: string; fix: string } | null>(null)
  return (
    <form aria-label="Create a personal access token" className="flex flex-wrap items-end gap-2" onSubmit={(e) => {
      e.preventDefault()
      const f = new FormData(e.currentTarget)
      start(async () => {
        const r = await createPersonalTokenAction({ name: String(f.get('name')), days: Number(f.get('days')), ...(f.get('role') ? { role: String(f.get('role')) as Role } : {}) })
        setResult(r.ok ? { ok: true, token: r.data.token } : r)
      })
    }}>
      <label className="text-sm">Token name<input name="name" required className={`mt-1 block ${inputClass}`} /></label>
      <label className="text-sm">Days<input name="days" type="number" min={1} max={365} defaultValue={30} className={`mt-1 block w-24 ${inputClass}`} /></label>
      <label className="text-sm">Role (at most yours)<select name="role" defaultValue="" className={`mt-1 block ${inputClass}`}><option value="">mine</option>{ROLES.map((r) => <option key={r}>{r}</option>)}</select></label>
      <Button type="submit" disabled={pending}>{pending ? 'Creating…' : 'Create token'}</Button>
      {result?.ok && <p role="status" className="w-full text-sm">Copy it now (shown once): <code className="break-all" data-testid="personal-token">{result.token}</code></p>}
      {result && !result.ok && <ErrorNote error={result.error} fix={result.fix} />}
    </form>
  )
}

export function OperatorsView({ people, sessions, tokens, me }: { people: Person[]; sessions: Session[]; tokens: Token[]; me: string }) {
  return (
    <div className="mt-4 space-y-4">
      <Card title="People">
        <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800" aria-label="People">
          {people.map((p) => (
            <li key={p.username} className="flex flex-wrap items-center gap-2 py-2" data-testid={`person-${p.username}`}>
              <span className="font-medium">{p.name}</span> <code>{p.username}</code>{p.email && <span>{p.email}</span>}
              <span>{p.role}</span>{!p.enabled && <span className="text-red-700 dark:text-red-300">disabled</span>}
              {p.source === 'local' && !p.hasPassword && <span className="text-xs">(invited)</span>}
              {p.username !== me && (
                <span className="ml-auto flex flex-wrap gap-1">
                  {ROLES.filter((r) => r !== p.role).map((r) => <ActionButton key={r} action={changeOperatorAction} permission="admin" input={{ username: p.username, role: r }} label={`Make ${r}`} name={`Make ${p.username} ${r}`} />)}
                  <ActionButton action={changeOperatorAction} permission="admin" input={{ username: p.username, enabled: !p.enabled }} label={p.enabled ? 'Disable' : 'Enable'} name={`${p.enabled ? 'Disable' : 'Enable'} ${p.username}`} variant={p.enabled ? 'danger' : 'secondary'}
                    confirm={p.enabled ? `Disable ${p.username}? Their sessions and tokens end at once.` : undefined} />
                </span>
              )}
            </li>
          ))}
        </ul>
        <Allowed permission="admin"><div className="mt-3"><Invite /></div></Allowed>
      </Card>
      <Card title="Sessions">
        <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800" aria-label="Sessions">
          {sessions.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center gap-2 py-2">
              <code>{s.username}</code><span>{s.method}</span><span>{s.address}</span><span>last used <RelativeTime iso={s.lastSeenAt} /></span>
              <span className="ml-auto"><ActionButton action={endSessionAction} permission="view" input={{ id: s.id }} label="End" name={`End session ${s.id} of ${s.username}`} variant="danger" /></span>
            </li>
          ))}
        </ul>
      </Card>
      <Card title="Personal access tokens">
        <p className="mb-2 text-sm">For REST and remote scripts: <code>X-API-Key: tg_pt_…</code> or <code>Authorization: Bearer tg_pt_…</code>. Each carries at most your role and expires.</p>
        <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800" aria-label="Personal access tokens">
          {tokens.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center gap-2 py-2">
              <code>{t.username}</code><span>{t.name}</span><span>{t.role}</span><span>expires <RelativeTime iso={t.expiresAt} /></span><span>{t.uses} uses</span>
              <span className="ml-auto"><ActionButton action={revokePersonalTokenAction} permission="view" input={{ id: t.id }} label="Revoke" name={`Revoke token ${t.name} of ${t.username}`} variant="danger" /></span>
            </li>
          ))}
        </ul>
        <div className="mt-3"><NewToken /></div>
      </Card>
    </div>
  )
}
