import 'server-only'
import { getDb } from '@/db/client'
import { readSettings } from '@/db/queries/settings'
import { accessOverview } from '../access'
import { tokenDetail } from '../token'

/** `/tokens`: every agent token and profile, and the profile an anonymous agent gets. */
export function loadTokens() {
  const db = getDb()
  return { access: accessOverview(db), anonymousProfile: readSettings(db).mcpAnonymousProfile }
}

/** `/tokens/<name>`: one agent token as `operator` sees it, with the access overview its row needs; null when no such token exists. */
export function loadToken(name: string, operator: string) {
  const db = getDb()
  const token = tokenDetail(db, name, operator)
  return token ? { token, access: accessOverview(db) } : null
}
