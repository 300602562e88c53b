import 'server-only'
import { refresh } from 'next/cache'
import type { z } from 'zod'
import type { Db } from '@/db/client'
import { describeError, ToolgateError, type FailureKind } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { getDb } from '@/db/client'
import { formatIssues } from '@/lib/schemas/issues'
import { currentPrincipal } from '@/lib/dashboard/operator'
import { contextOf } from '@/lib/auth/accounts'
import { can, refusal, type Permission, type Principal } from '@/lib/auth/roles'
import type { ActionContext } from '@/lib/activity/record-change'
import { noteAction } from '@/lib/telemetry/http'

/** What every dashboard action returns: data, or an error that says why and what to do. */
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: string; fix: string }

/** The database, the person acting, and what their changes record about them. */
export interface OperatorContext { db: Db; principal: Principal; by: ActionContext }

// a refused change is explained by its message, which names the next step; nothing was changed
const fixes: Record<FailureKind, string> = {
  bad_request: 'Nothing was changed: do what the message says, then try again.',
  unauthorized: 'Sign in again.',
  forbidden: 'Ask an admin for a role that may, or open the dashboard at the address toolgate serves (see TOOLGATE_ALLOWED_HOSTS / TOOLGATE_ALLOWED_ORIGINS).',
  not_found: 'Reload the page: the state changed since it was shown.',
  rate_limited: 'Wait as long as the message says, then try again.',
  unavailable: 'Check that the state database is reachable, then retry.',
}

export const signedOut = { ok: false, error: 'You are not signed in (or your session expired).', fix: fixes.unauthorized } as const

/**
 * The one wrapper every server action goes through. Server actions are public POST
 * endpoints, so the session and the person's role (`permission`, lib/auth/roles.ts) are
 * checked before anything else — even before the input is looked at — then the input is
 * parsed with zod, then ONE lib/ function runs.
 */
export function operatorAction<S extends z.ZodType, T>(
  permission: Permission,
  schema: S,
  run: (input: z.output<S>, ctx: OperatorContext) => T | Promise<T>,
  opts: { refresh?: boolean } = {},
) {
  const act = async (raw: z.input<S>): Promise<ActionResult<T>> => {
    const principal = await currentPrincipal()
    if (!principal) return signedOut
    if (!can(principal.role, permission)) return { ok: false, error: refusal(principal.role, permission), fix: 'Nothing was changed. Ask an admin for a role that may.' }
    const parsed = schema.safeParse(raw)
    if (!parsed.success) return { ok: false, error: `Invalid input: ${formatIssues(parsed.error)}`, fix: 'Correct the field the message names, then try again.' }
    try {
      const data = await run(parsed.data, { db: getDb(), principal, by: contextOf(principal) })
      // state shown by server components changed: re-render the current page in the same round trip
      if (opts.refresh) refresh()
      return { ok: true, data }
    } catch (e) {
      if (e instanceof ToolgateError) return { ok: false, error: e.message, fix: fixes[e.kind] }
      logError(`toolgate dashboard: action failed: ${describeError(e)}`)
      return { ok: false, error: `The action failed: ${describeError(e)}`, fix: fixes.unavailable }
    }
  }
  // the front door named the action's span (lib/telemetry/http.ts); its outcome goes on it here
  return async (raw: z.input<S>): Promise<ActionResult<T>> => noteAction(await act(raw))
}
