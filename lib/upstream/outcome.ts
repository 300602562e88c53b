import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client'
import { describeError } from '@/lib/core/errors'

/**
 * How one connection to an upstream ended. Its kind decides what the runtime does next: `closed`
 * (it was up) reconnects with the backoff started afresh, `failed` (it never came up) backs off
 * further, `unauthorized` waits for a login, `stopped` (toolgate stopped it) ends the run.
 */
export type ConnectionOutcome =
  | { kind: 'closed'; why: string }
  | { kind: 'failed'; why: string }
  | { kind: 'unauthorized' }
  | { kind: 'stopped' }

/** An outcome as people read it: the connection's detail in the db, its log and activity. */
export function outcomeText(o: ConnectionOutcome): string {
  switch (o.kind) {
    case 'closed': return `closed: ${o.why}`
    case 'failed': return `failed: ${o.why}`
    case 'unauthorized': return 'unauthorized'
    case 'stopped': return 'stopped'
  }
}

/** What an operator needs to know about a failed connection: refused where, DNS, TLS, spawn. */
export function describeConnectionError(e: unknown): string {
  const err = e as { message?: string; code?: string; cause?: { code?: string; address?: string; port?: number; hostname?: string; message?: string }; path?: string }
  const cause = err?.cause
  const code = cause?.code ?? err?.code
  if (code === 'ECONNREFUSED') return `connection refused${cause?.address ? ` by ${cause.address}${cause.port ? `:${cause.port}` : ''}` : ''} (ECONNREFUSED)`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS lookup failed for ${cause?.hostname ?? 'the host'} (${code})`
  if (code === 'ECONNRESET') return 'the connection was reset by the server (ECONNRESET)'
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return `connecting timed out (${code})`
  if (code && (/^ERR_TLS|^CERT_|_CERT|^DEPTH_ZERO|^SELF_SIGNED|^UNABLE_TO_VERIFY/.test(code))) return `TLS error: ${cause?.message ?? err.message} (${code})`
  if (code === 'ENOENT' && err.path) return `could not start "${err.path}": no such file or command (ENOENT)`
  if (code === 'EACCES' && err.path) return `could not start "${err.path}": permission denied (EACCES)`
  return describeError(e)
}

/** A failure of the connection itself (not an error the server answered): the upstream needs reconnecting. */
export function isTransportFailure(e: unknown): boolean {
  if (e instanceof ProtocolError) return false // the server answered an error
  if (e instanceof SdkHttpError) return e.status === 404 || e.status === 400 || e.status >= 500 // session gone, server failing
  // a method the negotiated revision lacks (ping, logging/setLevel on 2026-07-28) is refused before it is sent, and a
  // result of a kind the SDK cannot take (resultType) was answered: neither says the connection is broken
  if (e instanceof SdkError) return e.code !== SdkErrorCode.RequestTimeout && e.code !== SdkErrorCode.MethodNotSupportedByProtocolVersion && e.code !== SdkErrorCode.UnsupportedResultType // closed, not connected, a result that is no result
  return true // fetch failed, stream errors
}

/** A request that ran out of time (the SDK's, or toolgate's own call clock). */
export const isTimeout = (e: unknown) => e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout

/** A 401 that the OAuth provider could not fix by refreshing: only a login helps. */
export const isUnauthorized = (e: unknown) => e instanceof UnauthorizedError || (e instanceof SdkHttpError && e.status === 401) || (e as { code?: unknown })?.code === 401
