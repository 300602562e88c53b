import 'server-only'
import type { Db, Tx } from '@/db/client'
import { profileServers } from '@/db/queries/access'
import { operatorById, operatorList } from '@/db/queries/operators'
import { readSettings, writeSettings, type ProxySettings } from '@/db/queries/settings'
import { writeTransaction } from '@/db/write'
import { oidcConfig } from '@/lib/auth/oidc'
import { badRequest } from '@/lib/core/errors'
import { formatIssues } from '@/lib/schemas/issues'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { settingsPatchSchema } from '@/lib/schemas/admin'

/** Settings as the state file and the CLI name them. */
export const presentSettings = (s: ProxySettings) => ({
  quarantine_enabled: s.quarantineEnabled,
  mcp_anonymous_profile: s.mcpAnonymousProfile,
  activity_retention_days: s.activityRetentionDays,
  call_approval_wait_ms: s.callApprovalWaitMs,
  max_description_overlap: s.maxDescriptionOverlap,
  agent_requests_per_second: s.agentRequestsPerSecond,
  agent_recorded_mib_per_hour: s.agentRecordedMibPerHour,
  break_glass_key: s.breakGlassKey,
  two_person_rule: s.twoPersonRule,
  local_accounts: s.localAccounts,
})
export type PresentedSettings = ReturnType<typeof presentSettings>

/**
 * Change proxy-wide settings (state-file names), on the record with before/after. An anonymous
 * profile must exist when it is named (deleting it later denies anonymous callers everything).
 */
export async function updateSettings(db: Db, patch: unknown, ctx: ActionContext) {
  const parsed = settingsPatchSchema.safeParse(patch)
  if (!parsed.success) throw badRequest(formatIssues(parsed.error))
  const p = parsed.data
  if (Object.keys(p).length === 0) throw badRequest('nothing to change: name a setting (quarantine_enabled, mcp_anonymous_profile, activity_retention_days, call_approval_wait_ms, max_description_overlap, agent_requests_per_second, agent_recorded_mib_per_hour, break_glass_key, two_person_rule, local_accounts)')
  return writeTransaction(db, (tx) => {
    const before = presentSettings(readSettings(tx))
    // turning the shared key off must leave an admin who can sign in as themselves
    if (p.break_glass_key === false && before.break_glass_key && !operatorList(tx).some((o) => o.enabled && o.role === 'admin' && o.source !== 'bootstrap')) {
      throw badRequest('break_glass_key: create an enabled admin account first (toolgate operators add, or invite one): with the key off, only accounts sign in')
    }
    const blocked = p.local_accounts === false && before.local_accounts ? whyLocalAccountsStay(tx, ctx) : null
    if (blocked) throw badRequest(`local_accounts: ${blocked}`)
    if (p.mcp_anonymous_profile && profileServers(tx, p.mcp_anonymous_profile) === undefined) {
      throw badRequest(`mcp_anonymous_profile: no profile "${p.mcp_anonymous_profile}" exists (create it first)`)
    }
    writeSettings(tx, {
      ...(p.quarantine_enabled !== undefined ? { quarantineEnabled: p.quarantine_enabled } : {}),
      ...(p.mcp_anonymous_profile !== undefined ? { mcpAnonymousProfile: p.mcp_anonymous_profile } : {}),
      ...(p.activity_retention_days !== undefined ? { activityRetentionDays: p.activity_retention_days } : {}),
      ...(p.call_approval_wait_ms !== undefined ? { callApprovalWaitMs: p.call_approval_wait_ms } : {}),
      ...(p.max_description_overlap !== undefined ? { maxDescriptionOverlap: p.max_description_overlap } : {}),
      ...(p.agent_requests_per_second !== undefined ? { agentRequestsPerSecond: p.agent_requests_per_second } : {}),
      ...(p.agent_recorded_mib_per_hour !== undefined ? { agentRecordedMibPerHour: p.agent_recorded_mib_per_hour } : {}),
      ...(p.break_glass_key !== undefined ? { breakGlassKey: p.break_glass_key } : {}),
      ...(p.two_person_rule !== undefined ? { twoPersonRule: p.two_person_rule } : {}),
      ...(p.local_accounts !== undefined ? { localAccounts: p.local_accounts } : {}),
    })
    const after = presentSettings(readSettings(tx))
    return { before, after, ...recordChange(tx, 'settings.changed', ctx, { target: 'settings', before, after }) }
  })
}

/**
 * Why passwords cannot be turned off now, or null: only once single sign-on works for whoever
 * turns them off — SSO is configured, and the acting admin's account is linked to the provider
 * (they signed in through it). The CLI (no account) is another process than the server, whose
 * environment configures SSO, so it goes by what is stored: some enabled admin is linked (SSO
 * worked for them). The break-glass key is apart from this: it stays as the way back in.
 */
function whyLocalAccountsStay(tx: Tx, ctx: ActionContext): string | null {
  const me = ctx.operatorId ? operatorById(tx, ctx.operatorId) : undefined
  if (me && !oidcConfig()) return 'single sign-on is not configured (TOOLGATE_OIDC_ISSUER, TOOLGATE_OIDC_CLIENT_ID): with passwords off, people sign in only through it'
  if (me) return me.oidcSubject ? null : `your account (${me.username}) has not signed in with single sign-on: sign in through it first, so that turning passwords off cannot lock you out`
  return operatorList(tx).some((o) => o.enabled && o.role === 'admin' && o.oidcSubject) ? null : 'no enabled admin has signed in with single sign-on yet: one must, before passwords are turned off'
}
