import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus'
import { metrics as sdkMetrics, NodeSDK, resources } from '@opentelemetry/sdk-node'
import type { Db } from '@/db/client'
import pkg from '@/package.json'
import type { TelemetryConfig } from './config'
import { makeInstruments } from './metrics'
import { setTelemetry } from './state'
import { endPending } from './context'

/** The OTLP metric exporter for the configured protocol (the SDK's default: http/protobuf). */
async function otlpMetricExporter(protocol: string): Promise<sdkMetrics.PushMetricExporter> {
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-metrics-otlp-grpc')).OTLPMetricExporter()
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter()
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter()
}

/**
 * The OpenTelemetry SDK, loaded only when something is on. Spans go where the standard variables
 * say (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_*, OTEL_TRACES_SAMPLER, OTEL_PROPAGATORS …, read
 * by the SDK); metrics to OTLP and/or toolgate's own GET /metrics; the resource's service.name
 * is "toolgate" unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
 */
export async function startSdk(db: Db, config: TelemetryConfig): Promise<() => Promise<void>> {
  if (!config.traces && !config.otlpMetrics && !config.prometheus) {
    // JSON logs alone: a context to carry each request's id, nothing exported
    const manager = new AsyncLocalStorageContextManager().enable()
    context.setGlobalContextManager(manager)
    setTelemetry({ captureArguments: false, jsonLogs: true })
    return async () => {
      setTelemetry(undefined)
      context.disable()
    }
  }
  const readers: sdkMetrics.MetricReader[] = []
  const prometheus = config.prometheus ? new PrometheusExporter({ preventServerStart: true }) : undefined
  if (prometheus) readers.push(prometheus)
  if (config.otlpMetrics) {
    readers.push(new sdkMetrics.PeriodicExportingMetricReader({
      exporter: await otlpMetricExporter(config.metricsProtocol),
      ...(config.metricExportIntervalMs ? { exportIntervalMillis: config.metricExportIntervalMs } : {}),
      ...(config.metricExportTimeoutMs ? { exportTimeoutMillis: Math.min(config.metricExportTimeoutMs, config.metricExportIntervalMs ?? 60_000) } : {}),
    }))
  }
  const sdk = new NodeSDK({
    resource: resources.defaultResource().merge(resources.resourceFromAttributes({ 'service.name': 'toolgate', 'service.version': pkg.version })),
    metricReaders: readers,
    // no span processor, no tracer provider: the API's no-op tracer stays
    ...(config.traces ? {} : { spanProcessors: [] }),
    // logs stay on stderr (TOOLGATE_LOG_FORMAT=json for a collector to read)
    logRecordProcessors: [],
  })
  sdk.start()
  setTelemetry({
    tracer: config.traces ? trace.getTracer('toolgate', pkg.version) : undefined,
    propagationFields: config.traces ? propagation.fields() : undefined,
    jsonLogs: config.jsonLogs,
    metrics: readers.length ? makeInstruments(db) : undefined,
    captureArguments: config.captureArguments,
    prometheus: prometheus && ((req, res) => prometheus.getMetricsRequestHandler(req, res)),
  })
  return async () => {
    setTelemetry(undefined)
    endPending()
    await sdk.shutdown() // what is still buffered is exported first
  }
}
