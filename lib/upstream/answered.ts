import { ProtocolError } from '@modelcontextprotocol/client'

/** A JSON-RPC error as an upstream answered it. */
export interface UpstreamError { code: number; message: string; data?: unknown }

/**
 * The error an upstream answered (a JSON-RPC error response), as it gave it — not a broken
 * connection nor a timeout, which are toolgate's to word (the SDK raises those as its own errors).
 */
export function upstreamError(e: unknown): UpstreamError | undefined {
  if (!(e instanceof ProtocolError)) return undefined
  return { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) }
}
