import { requestIdFrom } from '../../../../lib/activity/request-id'
import { callerFromHeaders } from '../../../../lib/auth/caller'
import { errorResponse, jsonResponse, readJsonBody } from '../../../../lib/http/json'
import { serverDb } from '../../../../lib/http/server-db'
import { parsePreflightBody } from '../../../../lib/preflight/schemas'
import { runCheck } from '../../../../lib/preflight/service'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** POST /api/v1/preflight — contract §9. HTTP status never encodes the verdict. */
export async function POST(req: Request): Promise<Response> {
  const requestId = requestIdFrom(req.headers.get('x-request-id'))
  try {
    const db = serverDb()
    const caller = callerFromHeaders(db, req.headers)
    const { input, waitMs } = parsePreflightBody(await readJsonBody(req))
    const data = await runCheck(db, { caller, surface: 'rest', requestId, input, waitMs })
    return jsonResponse({ success: true, data }, 200, requestId)
  } catch (e) {
    return errorResponse(e, requestId)
  }
}
