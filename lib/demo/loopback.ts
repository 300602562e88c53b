import 'server-only'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describeError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { boundaryFault, boundaryFromEnv } from '@/lib/http/boundary'

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

export interface Listening {
  /** http://127.0.0.1:<port> */
  origin: string
  /** what answers from now on (until then: 503), set once the services know each other's addresses */
  serve: (handler: Handler) => void
  close: () => Promise<void>
}

/**
 * Listen on a free port of 127.0.0.1: the demo's services are reachable from this machine only,
 * and a port of their own each run never collides with anything already listening. They keep
 * toolgate's boundary: a rebound Host or a foreign Origin is refused before anything runs (a
 * web page must not drive the demo's consent page or token endpoint from the browser).
 */
export async function listenOnLoopback(name: string): Promise<Listening> {
  let handler: Handler | undefined
  const boundary = boundaryFromEnv()
  const server = createServer((req, res) => {
    const fault = boundaryFault(boundary, req.headers.host, req.headers.origin)
    if (fault) return void res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`${fault}\n`)
    if (!handler) return void res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end(`${name} is starting`)
    handler(req, res).catch((e: unknown) => {
      logError(`toolgate demo: ${name}: ${req.method} ${req.url} failed: ${describeError(e)}`)
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`${name} failed: ${describeError(e)}`)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (h) => void (handler = h),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
