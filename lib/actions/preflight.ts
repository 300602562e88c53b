'use server'

import 'server-only'
import { dashboardPreflight, remediateAndRecheck } from '@/lib/dashboard/preflight'
import { preflightFormSchema, remediateSchema } from '@/lib/schemas/dashboard'
import { fixPermission } from '@/lib/dashboard/fix-permission'
import { can, refusal } from '@/lib/auth/roles'
import { forbidden } from '@/lib/core/errors'
import { isDestructive, releaseRequester, twoPersonGate, type Gate } from '@/lib/approvals/two-person'
import { releaseSubject } from '@/lib/approvals/two-person-subjects'
import { restartLanded } from '@/lib/catalog/servers'
import { serverSchema } from '@/lib/schemas/actions'
import { operatorAction } from './safe-action'

/** Run and record a check (surface `dashboard`). */
export const runPreflight = operatorAction('operate', preflightFormSchema, (form, { db, by }) => dashboardPreflight(db, form, by))

/** A row's remediation button: the shared mutation (on the record), then the same check again. */
export const remediate = operatorAction('operate', remediateSchema, async ({ fix, check, requestId }, { db, by, principal }) => {
  // the fix itself may need more than running a check: approving a tool is an approver's
  if (!can(principal.role, fixPermission[fix.kind])) throw forbidden(refusal(principal.role, fixPermission[fix.kind]))
  // approvals the two-person rule covers: a first one is kept, and the check shows it still blocked
  const gate: Gate = fix.kind === 'approve_tool' ? await twoPersonGate(db, { kind: 'tool', target: fix.id, subject: fix.hash, destructive: isDestructive(db, fix.id) }, by)
    : fix.kind === 'release_server' ? await twoPersonGate(db, { kind: 'release', target: fix.server, subject: releaseSubject(fix.shown), destructive: Object.keys(fix.shown).some((t) => isDestructive(db, `${fix.server}:${t}`)), requester: releaseRequester(db, fix.server) }, by)
    : { proceed: true as const }
  if (!gate.proceed) throw forbidden(`two-person rule: your approval of ${gate.firstOfTwo.target} is 1 of 2 — another approver must approve it too`)
  return remediateAndRecheck(db, fix, check, requestId, by)
})

/** Whether a restart a row's fix asked for has landed (the page checks again then). */
export const restartSettled = operatorAction('view', serverSchema, ({ server }, { db }) => restartLanded(db, server))
