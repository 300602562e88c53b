import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '@/db/client'
import { callerFromHeaders, isLoopback, type HeaderReader } from '@/lib/auth/caller'
import { forbidden, notFoundError } from '@/lib/core/errors'
import { publicMessage, statusOfError } from './json'
import { telemetryConfig } from '@/lib/telemetry/config'
import { telemetry } from '@/lib/telemetry/state'

/**
 * Who may read /metrics — the one place this is decided: an operator credential (the break-glass
 * key or a personal access token, any role: metrics are a read), or,
 * when TOOLGATE_METRICS_LOOPBACK=1, any caller on this machine (a local Prometheus agent).
 * Agent tokens never: the metrics name every server and tool.
 */
export function checkMetricsAccess(db: Db, headers: HeaderReader, remoteAddress: string | undefined): void {
  if (telemetryConfig().metricsLoopback && isLoopback(remoteAddress)) return
  if (callerFromHeaders(db, headers).tier !== 'operator') throw forbidden('/metrics takes an operator credential (X-API-Key: the break-glass key or a personal access token), not an agent token')
}

/** GET /metrics: the Prometheus text format, once the caller may read it. */
export function serveMetrics(req: IncomingMessage, res: ServerResponse, db: Db, headers: HeaderReader, requestId: string): void {
  try {
    checkMetricsAccess(db, headers, req.socket.remoteAddress)
    const serve = telemetry()?.prometheus
    if (!serve) throw notFoundError('metrics are off: start toolgate with OTEL_METRICS_EXPORTER=prometheus to serve them here (docs/observability.md)')
    serve(req, res)
  } catch (e) {
    const status = statusOfError(e)
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': requestId })
      .end(`${publicMessage(e, requestId)}\n`)
  }
}
