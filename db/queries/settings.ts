import 'server-only'
import { eq } from 'drizzle-orm'
import type { DbLike } from '@/db/client'
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
}

export const settingsDefaults: ProxySettings = {
  quarantineEnabled: true, mcpAnonymousProfile: null, activityRetentionDays: 90, callApprovalWaitMs: 60_000, maxDescriptionOverlap: null,
  agentRequestsPerSecond: 5_000, agentRecordedMibPerHour: 64,
}

export function readSettings(db: DbLike): ProxySettings {
  const row = db.select({
    quarantineEnabled: settings.quarantineEnabled, mcpAnonymousProfile: settings.mcpAnonymousProfile,
    activityRetentionDays: settings.activityRetentionDays, callApprovalWaitMs: settings.callApprovalWaitMs,
    maxDescriptionOverlap: settings.maxDescriptionOverlap,
    agentRequestsPerSecond: settings.agentRequestsPerSecond, agentRecordedMibPerHour: settings.agentRecordedMibPerHour,
  }).from(settings).where(eq(settings.id, 1)).get()
  return row ?? settingsDefaults
}
