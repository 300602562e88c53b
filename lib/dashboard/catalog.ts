import { asc } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { agentTokens, profiles, tools } from '../../db/schema'

export interface TokenOption { name: string; allowedServers: string[]; profilePin: string | null }

/** What the preflight form offers: every known `server:tool` id, the agent tokens and the profiles. */
export function preflightOptions(db: Db) {
  return {
    ids: db.select({ s: tools.serverName, t: tools.name }).from(tools).orderBy(asc(tools.serverName), asc(tools.name)).all().map((r) => `${r.s}:${r.t}`),
    tokens: db.select({ name: agentTokens.name, allowedServers: agentTokens.allowedServers, profilePin: agentTokens.profilePin })
      .from(agentTokens).orderBy(asc(agentTokens.name)).all() as TokenOption[],
    profiles: db.select({ name: profiles.name }).from(profiles).orderBy(asc(profiles.name)).all().map((p) => p.name),
  }
}
export type PreflightOptions = ReturnType<typeof preflightOptions>
