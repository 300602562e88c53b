import { JSONRPC_VERSION, ProtocolErrorCode } from '@modelcontextprotocol/server'

/**
 * JSON-RPC's implementation-defined server error: a refusal that is not a fault in the request's
 * params — a limit reached, a method this endpoint does not serve, a prompt withheld.
 */
export const SERVER_ERROR = -32000

export type JsonRpcErrorCode = ProtocolErrorCode | typeof SERVER_ERROR

/**
 * The JSON-RPC answers toolgate writes itself, before or beside the SDK (which writes the rest):
 * `id` is the request's, or null when it could not be read.
 */
export function jsonRpcError(id: unknown, code: JsonRpcErrorCode, message: string, data?: unknown) {
  return { jsonrpc: JSONRPC_VERSION, id: id ?? null, error: data === undefined ? { code, message } : { code, message, data } }
}

export function jsonRpcResult(id: unknown, result: unknown) {
  return { jsonrpc: JSONRPC_VERSION, id: id ?? null, result }
}
