'use server'

import 'server-only'
import { dashboardPreflight, remediateAndRecheck } from '@/lib/dashboard/preflight'
import { preflightFormSchema, remediateSchema } from '@/lib/dashboard/schemas'
import { fixPermission } from '@/lib/dashboard/fix-permission'
import { can, refusal } from '@/lib/auth/roles'
import { forbidden } from '@/lib/core/errors'
import { operatorAction } from './safe-action'

/** Run and record a check (surface `dashboard`). */
export const runPreflight = operatorAction('operate', preflightFormSchema, (form, { db, by }) => dashboardPreflight(db, form, by.actor))

/** A row's remediation button: the shared mutation (on the record), then the same check again. */
export const remediate = operatorAction('operate', remediateSchema, ({ fix, check, requestId }, { db, by, principal }) => {
  // the fix itself may need more than running a check: approving a tool is an approver's
  if (!can(principal.role, fixPermission[fix.kind])) throw forbidden(refusal(principal.role, fixPermission[fix.kind]))
  return remediateAndRecheck(db, fix, check, requestId, by)
})
