'use server'

import 'server-only'
import { dashboardPreflight, remediateAndRecheck } from '@/lib/dashboard/preflight'
import { preflightFormSchema, remediateSchema } from '@/lib/dashboard/schemas'
import { operatorAction } from './safe-action'

/** Run and record a check (surface `dashboard`). */
export const runPreflight = operatorAction(preflightFormSchema, (form, { db, actor }) => dashboardPreflight(db, form, actor))

/** A row's remediation button: the shared mutation (on the record), then the same check again. */
export const remediate = operatorAction(remediateSchema, ({ fix, check, requestId }, { db, actor }) =>
  remediateAndRecheck(db, fix, check, requestId, actor))
