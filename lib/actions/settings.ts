'use server'

import 'server-only'
import { z } from 'zod'
import { updateSettings } from '@/lib/admin/settings'
import { settingsPatchSchema } from '@/lib/admin/schemas'
import { pruneActivity, retentionCutoff } from '@/lib/activity/retention'
import { operatorAction } from './safe-action'

/** Change proxy-wide settings (quarantine gate, anonymous /mcp profile, activity retention). */
export const saveSettingsAction = operatorAction(settingsPatchSchema, async (patch, { db, actor }) => (await updateSettings(db, patch, { actor })).after, { refresh: true })

/** Prune the activity log now, by the retention setting. */
export const pruneNowAction = operatorAction(z.strictObject({}), async ({}, { db, actor }) => {
  const cutoff = retentionCutoff(db)
  return cutoff === null ? 0 : pruneActivity(db, cutoff, actor)
}, { refresh: true })
