import 'server-only'
import type { Db } from '@/db/client'
import { profileList, tokenByName, tokens } from '@/db/queries/access'
import { mintRequestId } from '@/lib/activity/request-id'
import { expiredToken, tokenExpired } from '@/lib/auth/caller'
import { allowToolInConfig } from '@/lib/admin/server-settings'
import { enableServer, unquarantineServer } from '@/lib/admin/servers'
import type { ActionContext } from '@/lib/activity/record-change'
import { approveTool, enableTool } from '@/lib/admin/tools'
import { badRequest } from '@/lib/core/errors'
import { requestRestart } from '@/lib/admin/upstreams'
import type { Caller, EvaluationInput, ToolResult } from '@/lib/preflight/evaluate'
import { runCheck, type PreflightData } from '@/lib/gate/check'
import { exitCodes } from '@/lib/preflight/taxonomy'
import type { Fix, PreflightForm } from '@/lib/schemas/dashboard'
import { rowDetails, type RowDetail } from './row-details'
import type { RowFix } from './fixes'
import { explainAt, operatorAs } from './explain'

export interface DashboardCheck extends PreflightData {
  exit_code: number
  tier: Caller['tier']
  caller: string
  /** what a row's remediation needs shown before it runs: a diff, the tools a release exposes */
  details: Record<string, RowDetail>
  /** per id: the operator-tier cause behind what an agent was told, and the fix that can work */
  rows: Record<string, RowView>
}

export interface RowView {
  /** checking as a token: what the operator tier says of the same id under that token's scope, when it says more */
  cause?: ToolResult
  fix: RowFix | null
}

/**
 * The caller a dashboard check runs as: the signed-in operator, or an agent token's own
 * identity and scope read from its row (so "preflight as this token" is exactly what the
 * token itself would be told).
 */
export function callerFor(db: Db, token: string | null, operator: string): Caller {
  if (token === null) return { tier: 'operator', name: operator }
  const row = tokenByName(db, token)
  if (!row) throw badRequest(`no agent token named "${token}": choose one from the list`)
  // as /mcp would: an expired token is refused (401) before anything is checked
  if (tokenExpired(row.expiresAt, Date.now())) throw expiredToken(row.name, row.expiresAt!)
  return { tier: 'agent', name: `token:${row.name}`, allowedServers: row.allowedServers, profilePin: row.profilePin }
}

/** A recorded check (surface `dashboard`) through the one evaluation seam, on the record as `by`'s (as a token too). */
export async function dashboardPreflight(db: Db, form: PreflightForm, by: ActionContext, requestId = mintRequestId()): Promise<DashboardCheck> {
  const operator = by.actor
  const caller = callerFor(db, form.token, operator)
  const input: EvaluationInput = { ids: form.ids, ...(form.profile !== null ? { profile: form.profile } : {}), ...(hasPolicy(form) ? { policy: form.policy } : {}) }
  const data = await runCheck(db, { caller, surface: 'dashboard', requestId, input, by: { actor: by.actor, operatorId: by.operatorId, auth: by.auth } })
  const { causes, rows } = explain(db, caller, operator, input, data.tools)
  return { ...data, exit_code: exitCodes[data.verdict], tier: caller.tier, caller: caller.name, details: await rowDetails(db, causes), rows }
}

/**
 * The operator is signed in, so a check as a token is explained at the operator tier too: the
 * same evaluator, as the operator evaluating under that token's scope (`asToken`), says what the
 * agent's not_found really is. Fixes follow that cause, and only those that can work are offered.
 * (This explanation is not a verdict and is not recorded: the agent-tier check above is.)
 */
function explain(db: Db, caller: Caller, operator: string, input: EvaluationInput, told: ToolResult[]) {
  const viewer = caller.tier === 'operator' ? caller
    : operatorAs(operator, { name: caller.name.replace(/^token:/, ''), allowedServers: caller.allowedServers, profilePin: caller.profilePin })
  const explained = explainAt(db, viewer, input)
  const rows: Record<string, RowView> = {}
  explained.forEach(({ result: cause, fix }, i) => {
    const agentSaw = told[i]
    const saysMore = caller.tier === 'agent' && (agentSaw.status !== cause.status
      || (cause.status === 'unavailable' && agentSaw.status === 'unavailable' && (cause.reason !== agentSaw.reason || cause.detail !== agentSaw.detail)))
    rows[cause.id] = { ...(saysMore ? { cause } : {}), fix }
  })
  return { causes: explained.map((e) => e.result), rows }
}

const hasPolicy = (form: PreflightForm) => Object.values(form.policy).some(Boolean)

/** Run one remediation through the shared admin mutation (it records who did what). */
export async function applyFix(db: Db, fix: Fix, ctx: ActionContext): Promise<void> {
  switch (fix.kind) {
    case 'approve_tool': await approveTool(db, fix.id, ctx, { hash: fix.hash }); return
    case 'enable_tool': await enableTool(db, fix.id, ctx, { confirm: fix.confirm }); return
    case 'allow_tool': await allowToolInConfig(db, fix.id, ctx, { confirm: fix.confirm }); return
    case 'enable_server': await enableServer(db, fix.server, ctx); return
    case 'release_server': await unquarantineServer(db, fix.server, ctx, fix.shown); return
    case 'restart_server': await requestRestart(db, fix.server, ctx); return
  }
}

/**
 * Remediate, then check again. Both are recorded under the originating check's request_id,
 * so /activity/<request_id> reads as one story: blocked → what the operator did → the verdict after.
 */
export async function remediateAndRecheck(db: Db, fix: Fix, form: PreflightForm, requestId: string, by: ActionContext): Promise<DashboardCheck> {
  await applyFix(db, fix, { ...by, requestId })
  return dashboardPreflight(db, form, by, requestId)
}

/** What the preflight form offers besides ids: the agent tokens and the profiles. */
export function preflightOptions(db: Db) {
  return {
    tokens: tokens(db).map(({ name, allowedServers, profilePin }) => ({ name, allowedServers, profilePin })),
    profiles: profileList(db).map((p) => p.name),
  }
}
export type PreflightOptions = ReturnType<typeof preflightOptions>
