import { requestIdFrom } from '../../../../lib/activity/request-id'
import { callerFromHeaders } from '../../../../lib/auth/caller'
import { errorResponse, jsonResponse } from '../../../../lib/http/json'
import { serverDb } from '../../../../lib/http/server-db'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/v1/whoami — which tier these credentials reach; a cheap way to test a key or token. */
export async function GET(req: Request): Promise<Response> {
  const requestId = requestIdFrom(req.headers.get('x-request-id'))
  try {
    const caller = callerFromHeaders(serverDb(), req.headers)
    return jsonResponse({ success: true, data: { tier: caller.tier, name: caller.name } }, 200, requestId)
  } catch (e) {
    return errorResponse(e, requestId)
  }
}
