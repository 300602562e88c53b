'use server'

import 'server-only'
import { updateSettings } from '@/lib/admin/settings'
import { settingsPatchSchema } from '@/lib/schemas/admin'
import { noInputSchema } from '@/lib/schemas/actions'
import { pruneActivity, retentionCutoff } from '@/lib/activity/retention'
import { operatorAction } from './safe-action'

/** Change proxy-wide settings (quarantine gate, anonymous /mcp profile, activity retention). */
export const saveSettingsAction = operatorAction('admin', settingsPatchSchema, async (patch, { db, by }) => (await updateSettings(db, patch, by)).after, { refresh: true })

/** Prune the activity log now, by the retention setting. */
export const pruneNowAction = operatorAction('admin', noInputSchema, async ({}, { db, by }) => {
  const cutoff = retentionCutoff(db)
  return cutoff === null ? 0 : pruneActivity(db, cutoff, by.actor)
}, { refresh: true })
