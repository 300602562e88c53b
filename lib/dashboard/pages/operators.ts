import 'server-only'
import { getDb } from '@/db/client'
import { listOperators, listPersonalTokens } from '@/lib/admin/operators'
import { listSessions } from '@/lib/auth/operator-sessions'
import { can, type Principal } from '@/lib/auth/roles'

const iso = (ms: number) => new Date(ms).toISOString()

/** `/operators`: people, their sessions and personal tokens — a person's own, an admin's everyone's. */
export function loadOperators(me: Principal) {
  const db = getDb()
  const admin = can(me.role, 'admin')
  return {
    people: listOperators(db).filter((o) => admin || o.id === me.operatorId).map(({ id: _id, ...o }) => o),
    sessions: listSessions(db, Date.now(), admin ? undefined : me.operatorId).map((s) => ({ ...s, lastSeenAt: iso(s.lastSeenAt) })),
    tokens: listPersonalTokens(db, me).map((t) => ({ ...t, createdAt: iso(t.createdAt), expiresAt: iso(t.expiresAt), lastUsedAt: t.lastUsedAt === null ? null : iso(t.lastUsedAt) })),
  }
}
