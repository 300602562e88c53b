import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'

/** A JSON-RPC error as an upstream answered it. */
export interface UpstreamError { code: number; message: string; data?: unknown }

/**
 * The error an upstream answered (a JSON-RPC error response), as it gave it — not a broken
 * connection nor a timeout, which are toolgate's to word. The SDK puts "MCP error <code>: " before
 * the upstream's message; that is taken off again, so the caller reads the upstream's own words.
 */
export function upstreamError(e: unknown): UpstreamError | undefined {
  if (!(e instanceof McpError) || e.code === ErrorCode.ConnectionClosed || e.code === ErrorCode.RequestTimeout) return undefined
  return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, ''), ...(e.data !== undefined ? { data: e.data } : {}) }
}
