import 'server-only'
import type { Statement } from 'better-sqlite3'
import { eq } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { settings } from '@/db/schema'

/** The proxy-wide settings with their defaults: the one place they are read (state-file spec). */
export interface ProxySettings {
  quarantineEnabled: boolean
  mcpAnonymousProfile: string | null
  activityRetentionDays: number | null
  callApprovalWaitMs: number
  maxDescriptionOverlap: number | null
  agentRequestsPerSecond: number | null
  agentRecordedMibPerHour: number | null
  /** false: the shared key no longer signs in (named operators only) */
  breakGlassKey: boolean
  /** which approvals need two different approvers */
  twoPersonRule: 'off' | 'destructive' | 'all'
  /** false: passwords no longer sign in (single sign-on and the break-glass key do) */
  localAccounts: boolean
}

export const settingsDefaults: ProxySettings = {
  quarantineEnabled: true, mcpAnonymousProfile: null, activityRetentionDays: 90, callApprovalWaitMs: 60_000, maxDescriptionOverlap: null,
  agentRequestsPerSecond: 5_000, agentRecordedMibPerHour: 64, breakGlassKey: true, twoPersonRule: 'off', localAccounts: true,
}

const settingsStatements = new WeakMap<DbLike, ReturnType<typeof prepareSettings>>()
const prepareSettings = (db: DbLike) => db.select({
  quarantineEnabled: settings.quarantineEnabled, mcpAnonymousProfile: settings.mcpAnonymousProfile,
  activityRetentionDays: settings.activityRetentionDays, callApprovalWaitMs: settings.callApprovalWaitMs,
  maxDescriptionOverlap: settings.maxDescriptionOverlap,
  agentRequestsPerSecond: settings.agentRequestsPerSecond, agentRecordedMibPerHour: settings.agentRecordedMibPerHour,
  breakGlassKey: settings.breakGlassKey, twoPersonRule: settings.twoPersonRule, localAccounts: settings.localAccounts,
}).from(settings).where(eq(settings.id, 1)).prepare()

/** The settings as stored (prepared once per connection: requests read them on the hot path). */
export function readSettings(db: DbLike): ProxySettings {
  let st = settingsStatements.get(db)
  if (!st) settingsStatements.set(db, (st = prepareSettings(db)))
  const row = st.get()
  return row ? { ...row, twoPersonRule: row.twoPersonRule as ProxySettings['twoPersonRule'] } : settingsDefaults
}

/** Change the settings `patch` names (inside the caller's write transaction); the others stay. */
export function writeSettings(tx: Tx, patch: Partial<ProxySettings>): void {
  if (Object.keys(patch).length) tx.update(settings).set(patch).where(eq(settings.id, 1)).run()
}

const versionStatements = new WeakMap<DbLike['$client'], Statement>()
/**
 * SQLite's data_version: it changes whenever another connection commits (another process — the
 * CLI, a state load — changing a setting, say), so a cache of what was read here can tell it is
 * stale without reading it again.
 */
export function foreignCommits(db: DbLike): number {
  let s = versionStatements.get(db.$client)
  if (!s) versionStatements.set(db.$client, (s = db.$client.prepare('pragma data_version').pluck()))
  return s.get() as number
}
