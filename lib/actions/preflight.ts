'use server'

import 'server-only'
import { dashboardPreflight, remediateAndRecheck } from '@/lib/dashboard/preflight'
import { preflightFormSchema, remediateSchema } from '@/lib/dashboard/schemas'
import { operatorAction } from './safe-action'

/** Run and record a check (surface `dashboard`). */
export const runPreflight = operatorAction('operate', preflightFormSchema, (form, { db, by }) => dashboardPreflight(db, form, by.actor))

/** A row's remediation button: the shared mutation (on the record), then the same check again. */
export const remediate = operatorAction('operate', remediateSchema, ({ fix, check, requestId }, { db, by }) =>
  remediateAndRecheck(db, fix, check, requestId, by))
