import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '@/db/client'
import { callerFromHeaders, restCredentials, type HeaderReader } from '@/lib/auth/caller'
import { ownRequestId } from '@/lib/activity/request-id'
import { admit } from '@/lib/limits/budgets'
import { parsePreflightBody } from '@/lib/schemas/preflight'
import { runCheck } from '@/lib/gate/check'
import { parseJson, readBody, sendError, sendJson } from './json'

export interface RestContext { db: Db; requestId: string; requestIdFromClient: boolean; headers: HeaderReader }

/** POST /api/v1/preflight — contract §9. HTTP status never encodes the verdict. */
export async function restPreflight(req: IncomingMessage, res: ServerResponse, ctx: RestContext): Promise<void> {
  let requestId = ctx.requestId
  try {
    // running a check is the operator role's (lib/auth/roles.ts); agent tokens check their own scope
    const caller = callerFromHeaders(ctx.db, ctx.headers, 'operate')
    admit(ctx.db, caller)
    requestId = ownRequestId(ctx.db, requestId, ctx.requestIdFromClient, caller.name)
    const { input, waitMs } = parsePreflightBody(parseJson(await readBody(req)))
    const data = await runCheck(ctx.db, { caller, surface: 'rest', requestId, input, waitMs })
    sendJson(res, 200, { success: true, data }, { 'x-request-id': requestId })
  } catch (e) {
    sendError(res, e, requestId)
  }
}

/** GET /api/v1/whoami — which tier (and, for a person, which role) these credentials reach; a cheap way to test a key or token. */
export function restWhoami(_req: IncomingMessage, res: ServerResponse, ctx: RestContext): void {
  try {
    const { caller, principal } = restCredentials(ctx.db, ctx.headers, 'view')
    admit(ctx.db, caller)
    const person = principal && { role: principal.role, auth: principal.auth }
    sendJson(res, 200, { success: true, data: { tier: caller.tier, name: caller.name, ...person } }, { 'x-request-id': ctx.requestId })
  } catch (e) {
    sendError(res, e, ctx.requestId)
  }
}
