import { badRequest, describeError, ToolgateError, type FailureKind } from '../errors'

export const MAX_BODY_BYTES = 1024 * 1024

const statusOf: Record<FailureKind, number> = { bad_request: 400, unauthorized: 401, not_found: 404, unavailable: 503 }

export class PayloadTooLarge extends Error {}

/** Read at most MAX_BODY_BYTES of the body and parse it as JSON; bad input is a named 400. */
export async function readJsonBody(req: Request): Promise<unknown> {
  const reader = req.body?.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > MAX_BODY_BYTES) {
        await reader.cancel()
        throw new PayloadTooLarge(`request body exceeds ${MAX_BODY_BYTES} bytes`)
      }
      chunks.push(value)
    }
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (!text.trim()) throw badRequest('request body is empty: expected one JSON object')
  try {
    return JSON.parse(text)
  } catch (e) {
    throw badRequest(`invalid JSON: ${describeError(e)}`)
  }
}

export function jsonResponse(body: unknown, status: number, requestId: string): Response {
  return Response.json(body, { status, headers: { 'x-request-id': requestId, 'cache-control': 'no-store' } })
}

/** Map a failure to the REST error envelope. Unknown failures are 503: never a fabricated verdict. */
export function errorResponse(e: unknown, requestId: string): Response {
  const status = e instanceof PayloadTooLarge ? 413 : e instanceof ToolgateError ? statusOf[e.kind] : 503
  const error = e instanceof ToolgateError || e instanceof PayloadTooLarge ? e.message : `toolgate could not answer honestly: ${describeError(e)}`
  if (status === 503) console.error(`toolgate: request ${requestId} failed: ${describeError(e)}`)
  return jsonResponse({ success: false, error, request_id: requestId }, status, requestId)
}
