import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { upstreamError } from '@/lib/upstream/answered'
import { describeError, ToolgateError } from '@/lib/core/errors'
import { currentMcpOp } from '@/lib/telemetry/context'
import { SERVER_ERROR } from '@/lib/http/json-rpc'

export const invalidParams = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message)

/**
 * Map a failure inside a handler to its JSON-RPC error. Anything that is not a request fault
 * is -32603: a check that could not be judged or recorded honestly is never answered with a
 * reduced verdict (seed invariant 1, contract §8.2 and §8.4).
 */
export function toProtocolError(e: unknown): ProtocolError {
  const err = protocolErrorOf(e)
  currentMcpOp()?.failed(err.code, err.message) // the request's span and duration carry the code
  return err
}

function protocolErrorOf(e: unknown): ProtocolError {
  if (e instanceof ProtocolError) return e
  // an error an upstream answered (resources/read of a missing resource, …) passes through as given
  const answered = upstreamError(e)
  if (answered) return new ProtocolError(answered.code, answered.message, answered.data)
  if (e instanceof ToolgateError && (e.kind === 'bad_request' || e.kind === 'not_found')) return invalidParams(e.message)
  if (e instanceof ToolgateError && e.kind === 'rate_limited') return new ProtocolError(SERVER_ERROR, e.message)
  const message = e instanceof ToolgateError ? e.message : `toolgate could not answer honestly: ${describeError(e)}`
  return new ProtocolError(ProtocolErrorCode.InternalError, message)
}
