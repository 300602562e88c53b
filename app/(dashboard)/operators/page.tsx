import type { Metadata } from 'next'
import { Card, PageHeader } from '@/components/ui'
import { OperatorsView } from '@/components/operators/operators-view'
import { pagePrincipal } from '@/lib/dashboard/operator'
import { loadOperators } from '@/lib/dashboard/pages/operators'

export const metadata: Metadata = { title: 'Operators' }

/** `/operators`: people, their roles, sessions and personal tokens. A person sees their own; an admin sees and manages everyone's. */
export default async function OperatorsPage() {
  const me = await pagePrincipal('/operators')
  if (!me) return null
  const { people, sessions, tokens } = loadOperators(me)
  return (
    <>
      <PageHeader title="Operators">People sign in as themselves; their role decides what they may do. You are <strong>{me.username}</strong> ({me.role}{me.auth === 'break-glass' ? ', signed in with the break-glass key' : ''}).</PageHeader>
      <Card title="How roles work"><p className="text-sm">viewer reads everything but call arguments · auditor also reads call arguments and exports activity · operator restarts, logs in upstreams, enables/disables servers, runs preflight · approver also approves tools, releases servers and decides held calls · admin does everything, including accounts, settings and tokens.</p></Card>
      <OperatorsView people={people} sessions={sessions} tokens={tokens} me={me.username} />
    </>
  )
}
