import type { Tracer } from '@opentelemetry/api'
import type { Instruments } from './metrics'

/**
 * The running telemetry, once started (lib/telemetry/start.ts); absent while it is off, so every
 * hook's first step is one property read. It lives on globalThis: the dashboard's server actions
 * run in Next.js's own bundle of these modules, and must see the same tracer and instruments.
 */
export interface Telemetry {
  /** present when spans are exported */
  tracer?: Tracer
  /** present when metrics are collected (OTLP, Prometheus or both) */
  metrics?: Instruments
  /** the header names the configured propagators read (OTEL_PROPAGATORS), when spans are exported */
  propagationFields?: readonly string[]
  /** a request's id is carried in its context for log lines (TOOLGATE_LOG_FORMAT=json) */
  jsonLogs?: boolean
  /** tool arguments and results go on spans (TOOLGATE_OTEL_CAPTURE_ARGUMENTS) */
  captureArguments: boolean
  /** answers GET /metrics, when the Prometheus reader is on */
  prometheus?: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void
}

// one holder per process, whichever bundle makes it first; read through a module constant, as a
// property of the global object is a slow lookup for a hook every request runs
const KEY = Symbol.for('toolgate.telemetry')
const holder: { current?: Telemetry } = ((globalThis as { [KEY]?: { current?: Telemetry } })[KEY] ??= {})

export const telemetry = (): Telemetry | undefined => holder.current

export function setTelemetry(t: Telemetry | undefined): void {
  holder.current = t
}
