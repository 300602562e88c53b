import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '@/db/client'
import { requestIdFrom } from '@/lib/activity/request-id'
import type { HeaderReader } from '@/lib/auth/caller'
import { handleMcp } from '@/lib/mcp/http'
import { logError, logLine } from '@/lib/core/log'
import { requestScope } from '@/lib/telemetry/http'
import { serveMetrics } from '@/lib/http/metrics'
import { boundaryFault, publicOrigin, type Boundary } from '@/lib/http/boundary'
import { REMOTE_HEADER } from '@/lib/http/headers'
import { clientWentAway, logClientGone, publicMessage, sendJson, statusOfError } from '@/lib/http/json'
import { jsonRpcError, SERVER_ERROR } from '@/lib/http/json-rpc'
import { actionHeaderFault, checkServerActionBody, isServerAction } from '@/lib/http/server-actions'
import { DEFAULT_CSP, HARDENING_HEADERS } from '@/lib/http/security-headers'
import { restPreflight, restWhoami } from '@/lib/http/rest'
import { oauthCallback } from '@/lib/http/oauth-callback'
import { CALLBACK_PATH, CLIENT_METADATA_PATH, clientMetadataDocument } from '@/lib/upstream/oauth'

export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

export interface FrontDoorOptions {
  db: () => Db
  boundary: Boundary
  /** Next.js: the dashboard, its server actions and route handlers, static assets */
  next: NextHandler
}

const nodeHeaders = (req: IncomingMessage): HeaderReader => ({
  get(name) {
    const v = req.headers[name]
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v
  },
})

const header = (req: IncomingMessage, name: string) => {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

const HARDENING = Object.entries(HARDENING_HEADERS)

const isApi = (path: string) => path === '/mcp' || path.startsWith('/mcp/') || path.startsWith('/api/')

/** A refusal before anything runs: JSON-RPC for /mcp, the REST envelope for /api, text otherwise. */
function refuse(res: ServerResponse, path: string, status: number, message: string, requestId: string): void {
  if (path === '/mcp' || path.startsWith('/mcp/')) {
    sendJson(res, status, jsonRpcError(null, SERVER_ERROR, message), { 'x-request-id': requestId })
  } else if (isApi(path)) {
    sendJson(res, status, { success: false, error: message, request_id: requestId }, { 'x-request-id': requestId })
  } else {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`${message}\n`)
  }
}

/** Every path segment must be valid percent-encoding: "/servers/%ZZ" is a 400, not a crash downstream. */
function malformedPath(path: string): boolean {
  try {
    decodeURIComponent(path)
    return false
  } catch {
    return true
  }
}

/**
 * toolgate's one HTTP entrance. The boundary (Host, Origin) is checked before anything runs,
 * for every request; then /mcp* and /api/v1/* go to lean handlers, and everything else to
 * Next.js (the dashboard).
 */
export function frontDoor(opts: FrontDoorOptions) {
  const answer = async (req: IncomingMessage, res: ServerResponse, path: string, requestId: string, fromClient: boolean): Promise<void> => {
    // the dashboard records where a sign-in came from: the socket's address, never a client's claim
    req.headers[REMOTE_HEADER] = req.socket.remoteAddress ?? ''
    // every answer, whoever writes it; dashboard pages get their own CSP (with a nonce) from proxy.ts
    for (const [name, value] of HARDENING) res.setHeader(name, value)
    res.setHeader('content-security-policy', DEFAULT_CSP)
    try {
      const fault = boundaryFault(opts.boundary, header(req, 'host'), header(req, 'origin'))
      if (fault) return refuse(res, path, 403, fault, requestId)
      if (malformedPath(path)) return refuse(res, path, 400, 'the request path has malformed percent-encoding', requestId)

      if (path === '/mcp' || path.startsWith('/mcp/p/')) {
        let profile: string | undefined
        if (path !== '/mcp') {
          const segment = path.slice('/mcp/p/'.length)
          if (!segment || segment.includes('/')) return refuse(res, path, 404, 'not found: the MCP endpoints are /mcp and /mcp/p/<profile>', requestId)
          profile = decodeURIComponent(segment)
        }
        return await handleMcp(req, res, { db: opts.db(), requestId, requestIdFromClient: fromClient, headers: nodeHeaders(req), remoteAddress: req.socket.remoteAddress, profile })
      }
      if (path === '/metrics') {
        if (req.method === 'GET') return serveMetrics(req, res, opts.db(), nodeHeaders(req), requestId)
        return refuse(res, path, 405, 'use GET for /metrics', requestId)
      }
      if (path === CALLBACK_PATH) {
        if (req.method === 'GET') return await oauthCallback(req, res, opts.db())
        return refuse(res, path, 405, `use GET for ${CALLBACK_PATH}`, requestId)
      }
      if (path === CLIENT_METADATA_PATH) {
        // public by nature: authorization servers fetch it; it holds no secret
        if (req.method !== 'GET') return refuse(res, path, 405, `use GET for ${CLIENT_METADATA_PATH}`, requestId)
        const origin = publicOrigin(opts.boundary, (name) => header(req, name))! // the boundary refused a request without Host
        return sendJson(res, 200, clientMetadataDocument(origin), { 'cache-control': 'max-age=300' })
      }
      if (path.startsWith('/api/v1/')) {
        const ctx = { db: opts.db(), requestId, requestIdFromClient: fromClient, headers: nodeHeaders(req) }
        if (path === '/api/v1/preflight') {
          if (req.method === 'POST') return await restPreflight(req, res, ctx)
          return refuse(res, path, 405, 'use POST for /api/v1/preflight', requestId)
        }
        if (path === '/api/v1/whoami') {
          if (req.method === 'GET') return restWhoami(req, res, ctx)
          return refuse(res, path, 405, 'use GET for /api/v1/whoami', requestId)
        }
        return refuse(res, path, 404, `no such endpoint: ${logLine(path, 100)}`, requestId)
      }
      // a page takes GET and HEAD (route handlers live under /api/); a POST to one is a server
      // action or nothing: Next.js would read a multipart or form body as a no-JavaScript
      // action, and fail with a 500
      if (!path.startsWith('/api/') && req.method !== 'GET' && req.method !== 'HEAD' && !isServerAction(req)) {
        res.setHeader('allow', 'GET, HEAD')
        return refuse(res, path, 405, `${logLine(req.method ?? '', 20)} is not served here: pages take GET (a server action is a POST with a Next-Action header)`, requestId)
      }
      if (isServerAction(req)) {
        const fault = actionHeaderFault(req)
        if (fault) return refuse(res, path, 400, fault, requestId)
        try {
          await checkServerActionBody(req)
        } catch (e) {
          return refuse(res, path, statusOfError(e), publicMessage(e, requestId), requestId)
        }
      }
      await opts.next(req, res)
    } catch (e) {
      if (clientWentAway(e)) {
        logClientGone(requestId)
        return void res.destroy()
      }
      // anything that escaped a handler: logged once with the request id, answered without internals
      logError(`toolgate: request ${requestId} (${req.method} ${path}) failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`, 8_000)
      if (!res.headersSent) refuse(res, path, 500, `toolgate failed unexpectedly (request ${requestId}); the server log has the details`, requestId)
      else res.destroy()
    }
  }
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const path = q < 0 ? url : url.slice(0, q)
    const { requestId, fromClient } = requestIdFrom(header(req, 'x-request-id'))
    // with telemetry on, the request is served in its context (its id for logs, its span)
    const scope = requestScope(req, path, requestId)
    return scope ? scope.run(answer, res, req, res, path, requestId, fromClient) : answer(req, res, path, requestId, fromClient)
  }
}
