import 'server-only'
import type { Db } from '@/db/client'
import { profileList, tokens } from '@/db/queries/access'
import { serverNames } from '@/db/queries/servers'
import { tokenExpired } from '@/lib/auth/caller'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** Tokens (never their secrets or hashes), profiles, and the server names to pick from. */
export function accessOverview(db: Db, now = Date.now()) {
  const profileRows = profileList(db)
  const tokenRows = tokens(db)
  const profileNames = new Set(profileRows.map((p) => p.name))
  return {
    tokens: tokenRows.map((t) => ({
      ...t, createdAt: new Date(t.createdAt).toISOString(), expiresAt: iso(t.expiresAt), lastUsedAt: iso(t.lastUsedAt),
      expired: tokenExpired(t.expiresAt, now), pinDangling: t.profilePin !== null && !profileNames.has(t.profilePin),
    })),
    profiles: profileRows.map((p) => ({ ...p, pinnedBy: tokenRows.filter((t) => t.profilePin === p.name).map((t) => t.name) })),
    servers: serverNames(db),
  }
}
export type AccessOverview = ReturnType<typeof accessOverview>
