import { asc } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { agentTokens, profiles, servers } from '../../db/schema'

/** Tokens (never their secrets or hashes), profiles, and the server names to pick from. */
export function accessOverview(db: Db) {
  const profileRows = db.select().from(profiles).orderBy(asc(profiles.name)).all()
  const tokens = db.select({ name: agentTokens.name, allowedServers: agentTokens.allowedServers, profilePin: agentTokens.profilePin, createdAt: agentTokens.createdAt })
    .from(agentTokens).orderBy(asc(agentTokens.name)).all()
  const profileNames = new Set(profileRows.map((p) => p.name))
  return {
    tokens: tokens.map((t) => ({ ...t, createdAt: new Date(t.createdAt).toISOString(), pinDangling: t.profilePin !== null && !profileNames.has(t.profilePin) })),
    profiles: profileRows.map((p) => ({ ...p, pinnedBy: tokens.filter((t) => t.profilePin === p.name).map((t) => t.name) })),
    servers: db.select({ name: servers.name }).from(servers).orderBy(asc(servers.name)).all().map((s) => s.name),
  }
}
export type AccessOverview = ReturnType<typeof accessOverview>
