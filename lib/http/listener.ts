import { createServer, type RequestListener, type Server } from 'node:http'

/**
 * How long a client may take to send its request. Node measures `requestTimeout` from the
 * first byte until the request — headers and body — has been received, and stops measuring
 * once it has: a long tools/call whose request arrived quickly is not cut, however long its
 * answer takes. A client that trickles its body is answered 408 and disconnected. Expired
 * requests are looked for every `connectionsCheckingInterval`.
 */
export const REQUEST_LIMITS = { requestTimeout: 60_000, headersTimeout: 30_000, connectionsCheckingInterval: 5_000 }

/** toolgate's HTTP listener: slow or stalled clients cannot hold a socket beyond these limits. */
export function createListener(handler: RequestListener, limits = REQUEST_LIMITS): Server {
  return createServer(limits, handler)
}
