import type { Metadata } from 'next'
import { getDb } from '@/db/client'
import { Card, PageHeader } from '@/components/ui'
import { OperatorsView } from '@/components/operators/operators-view'
import { listOperators, listPersonalTokens } from '@/lib/admin/operators'
import { listSessions } from '@/lib/auth/operator-sessions'
import { can } from '@/lib/auth/roles'
import { pagePrincipal } from '@/lib/dashboard/operator'

export const metadata: Metadata = { title: 'Operators' }

/** `/operators`: people, their roles, sessions and personal tokens. A person sees their own; an admin sees and manages everyone's. */
export default async function OperatorsPage() {
  const me = await pagePrincipal('/operators')
  if (!me) return null
  const db = getDb()
  const admin = can(me.role, 'admin')
  const people = listOperators(db).filter((o) => admin || o.id === me.operatorId).map(({ id: _id, ...o }) => o)
  const sessions = listSessions(db, Date.now(), admin ? undefined : me.operatorId)
  const tokens = listPersonalTokens(db, me).map((t) => ({ ...t, createdAt: new Date(t.createdAt).toISOString(), expiresAt: new Date(t.expiresAt).toISOString(), lastUsedAt: t.lastUsedAt === null ? null : new Date(t.lastUsedAt).toISOString() }))
  return (
    <>
      <PageHeader title="Operators">People sign in as themselves; their role decides what they may do. You are <strong>{me.username}</strong> ({me.role}{me.auth === 'break-glass' ? ', signed in with the break-glass key' : ''}).</PageHeader>
      <Card title="How roles work"><p className="text-sm">viewer reads everything but call arguments · auditor also reads call arguments and exports activity · operator restarts, logs in upstreams, enables/disables servers, runs preflight · approver also approves tools, releases servers and decides held calls · admin does everything, including accounts, settings and tokens.</p></Card>
      <OperatorsView people={people} sessions={sessions.map((s) => ({ ...s, lastSeenAt: new Date(s.lastSeenAt).toISOString() }))} tokens={tokens} me={me.username} />
    </>
  )
}
