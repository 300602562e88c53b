/**
 * Typed failures every surface maps the same way: REST status, JSON-RPC code, CLI exit 1.
 * A verdict is never an error; these are for requests that could not be judged honestly.
 */
export type FailureKind = 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'rate_limited' | 'unavailable'

export class ToolgateError extends Error {
  constructor(readonly kind: FailureKind, message: string) {
    super(message)
    this.name = 'ToolgateError'
  }
}

/** A request a limit refused, and in how many seconds to try again (REST 429 with Retry-After, MCP -32000). */
export class LimitedError extends ToolgateError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super('rate_limited', message)
    this.name = 'LimitedError'
  }
}

export const badRequest = (msg: string) => new ToolgateError('bad_request', msg)
export const unauthorized = (msg: string) => new ToolgateError('unauthorized', msg)
export const forbidden = (msg: string) => new ToolgateError('forbidden', msg)
export const notFoundError = (msg: string) => new ToolgateError('not_found', msg)
export const unavailableError = (msg: string) => new ToolgateError('unavailable', msg)

export function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
