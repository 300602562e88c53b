import 'server-only'
import type { Db } from '@/db/client'
import { tokenByName } from '@/db/queries/access'
import { listActivity } from '@/db/queries/activity'
import { readSnapshot } from '@/db/queries/preflight-state'
import { serverNames } from '@/db/queries/servers'
import { presentRecords } from '@/lib/activity/present-records'
import { toolInventory } from '@/lib/catalog/inventory'
import { narrowingOf, type Narrowing } from '@/lib/preflight/evaluate'
import { explainAt, operatorAs } from './explain'

const RECENT = 30

/**
 * One agent token as its own page shows it: its scope and what that scope yields server by
 * server, every known tool it cannot use now (with the operator-tier cause and the fix), and
 * its recent checks and calls. Judged by the shared evaluator; nothing here is recorded.
 */
export function tokenDetail(db: Db, name: string, operator: string) {
  const token = tokenByName(db, name)
  if (!token) return undefined
  const viewer = operatorAs(operator, token)
  const servers = readSnapshot(db, (state) => {
    const narrowing = narrowingOf(state, viewer)
    return serverNames(db).map((server): { server: string; excludedBy: Narrowing | null } => ({ server, excludedBy: narrowing(server) }))
  })
  const judged = explainAt(db, viewer, { ids: toolInventory(db).map((t) => t.id) })
  return {
    token: { name: token.name, allowedServers: token.allowedServers, profilePin: token.profilePin, createdAt: new Date(token.createdAt).toISOString() },
    servers,
    usable: judged.filter((e) => e.result.status === 'ready').length,
    blocked: judged.filter((e) => e.result.status !== 'ready'),
    recent: presentRecords(db, listActivity(db, { actor: `token:${token.name}`, limit: RECENT })),
  }
}
export type TokenDetail = NonNullable<ReturnType<typeof tokenDetail>>
