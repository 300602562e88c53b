import { environment } from '@/lib/core/config'

/**
 * What telemetry this process emits, read from the environment here and nowhere else. The
 * OpenTelemetry variables keep their standard meaning (the SDK itself reads the exporter details:
 * endpoints, headers, protocol, sampler, resource); this only decides what is on.
 * Everything is off unless set.
 */
export interface TelemetryConfig {
  /** spans exported through OTEL_TRACES_EXPORTER (otlp when an OTLP endpoint is set) */
  traces: boolean
  /** metrics pushed over OTLP (OTEL_METRICS_EXPORTER otlp, or an OTLP endpoint with it unset) */
  otlpMetrics: boolean
  /** metrics served at GET /metrics in the Prometheus text format (OTEL_METRICS_EXPORTER=prometheus) */
  prometheus: boolean
  /** /metrics answers loopback callers without a credential (TOOLGATE_METRICS_LOOPBACK=1) */
  metricsLoopback: boolean
  /** tool arguments and results on spans (TOOLGATE_OTEL_CAPTURE_ARGUMENTS=1): they may hold personal data */
  captureArguments: boolean
  /** every log line one JSON object (TOOLGATE_LOG_FORMAT=json) */
  jsonLogs: boolean
  /** OTEL_METRIC_EXPORT_INTERVAL / _TIMEOUT, for the OTLP metric reader */
  metricExportIntervalMs?: number
  metricExportTimeoutMs?: number
  /** OTEL_EXPORTER_OTLP_METRICS_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL (the SDK's default: http/protobuf) */
  metricsProtocol: string
}

type Env = Record<string, string | undefined>

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)
const yes = (v: string | undefined) => ['1', 'true', 'yes', 'on'].includes((v ?? '').trim().toLowerCase())
const ms = (v: string | undefined) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : undefined)

export function readTelemetryConfig(env: Env = environment()): TelemetryConfig {
  const disabled = yes(env.OTEL_SDK_DISABLED)
  const endpoint = (signal: 'TRACES' | 'METRICS') => Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`])
  const tracesExporters = list(env.OTEL_TRACES_EXPORTER)
  const metricsExporters = list(env.OTEL_METRICS_EXPORTER)
  const traces = !disabled && !tracesExporters.includes('none') && (tracesExporters.length > 0 || endpoint('TRACES'))
  const metricsOff = disabled || metricsExporters.includes('none')
  return {
    traces,
    otlpMetrics: !metricsOff && (metricsExporters.includes('otlp') || (metricsExporters.length === 0 && endpoint('METRICS'))),
    prometheus: !metricsOff && metricsExporters.includes('prometheus'),
    metricsLoopback: yes(env.TOOLGATE_METRICS_LOOPBACK),
    captureArguments: yes(env.TOOLGATE_OTEL_CAPTURE_ARGUMENTS),
    jsonLogs: (env.TOOLGATE_LOG_FORMAT ?? '').trim().toLowerCase() === 'json',
    metricExportIntervalMs: ms(env.OTEL_METRIC_EXPORT_INTERVAL),
    metricExportTimeoutMs: ms(env.OTEL_METRIC_EXPORT_TIMEOUT),
    metricsProtocol: (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim() || 'http/protobuf',
  }
}

let cached: TelemetryConfig | undefined
/** This process's configuration, read once. */
export const telemetryConfig = (): TelemetryConfig => (cached ??= readTelemetryConfig())
