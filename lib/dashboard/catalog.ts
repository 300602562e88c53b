import { and, asc, eq, gte, lt, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { agentTokens, profiles, tools } from '../../db/schema'

export interface TokenOption { name: string; allowedServers: string[]; profilePin: string | null }

/** What the preflight form offers besides ids: the agent tokens and the profiles. */
export function preflightOptions(db: Db) {
  return {
    tokens: db.select({ name: agentTokens.name, allowedServers: agentTokens.allowedServers, profilePin: agentTokens.profilePin })
      .from(agentTokens).orderBy(asc(agentTokens.name)).all() as TokenOption[],
    profiles: db.select({ name: profiles.name }).from(profiles).orderBy(asc(profiles.name)).all().map((p) => p.name),
  }
}
export type PreflightOptions = ReturnType<typeof preflightOptions>

export const SUGGESTIONS = 20
const MAX_CHAR = '\u{10FFFF}'

/**
 * Known `server:tool` ids starting with `prefix`, for autocomplete. Ranges over the tools
 * primary key (server_name, name), so it stays an index seek however many tools there are:
 * "no" → servers from "no"; "notes:re" → server "notes", names from "re".
 */
export function suggestToolIds(db: Db, prefix: string, limit = SUGGESTIONS): string[] {
  const q = prefix.trim()
  const at = q.indexOf(':')
  const where: SQL | undefined = at < 0
    ? and(gte(tools.serverName, q), lt(tools.serverName, q + MAX_CHAR))
    : and(eq(tools.serverName, q.slice(0, at)), gte(tools.name, q.slice(at + 1)), lt(tools.name, q.slice(at + 1) + MAX_CHAR))
  return db.select({ s: tools.serverName, t: tools.name }).from(tools).where(where)
    .orderBy(asc(tools.serverName), asc(tools.name)).limit(limit).all().map((r) => `${r.s}:${r.t}`)
}

