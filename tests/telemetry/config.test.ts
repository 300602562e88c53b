import { describe, expect, it } from 'vitest'
import { readTelemetryConfig } from '@/lib/telemetry/config'

describe('what the environment turns on', () => {
  it('nothing unless set', () => {
    expect(readTelemetryConfig({})).toMatchObject({ traces: false, otlpMetrics: false, prometheus: false, jsonLogs: false, captureArguments: false, metricsLoopback: false })
  })

  it('an OTLP endpoint: traces and OTLP metrics, by the standard variables', () => {
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toMatchObject({ traces: true, otlpMetrics: true, prometheus: false, metricsProtocol: 'http/protobuf' })
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' })).toMatchObject({ traces: true, otlpMetrics: false })
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' })).toMatchObject({ traces: false, otlpMetrics: true })
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).metricsProtocol).toBe('http/json')
  })

  it('metrics only: OTEL_METRICS_EXPORTER=prometheus serves /metrics, no traces', () => {
    expect(readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'prometheus' })).toMatchObject({ traces: false, otlpMetrics: false, prometheus: true })
    expect(readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'otlp, prometheus', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' })).toMatchObject({ traces: true, otlpMetrics: true, prometheus: true })
  })

  it('OTEL_SDK_DISABLED turns everything off but JSON logs', () => {
    expect(readTelemetryConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_METRICS_EXPORTER: 'prometheus', TOOLGATE_LOG_FORMAT: 'json' }))
      .toMatchObject({ traces: false, otlpMetrics: false, prometheus: false, jsonLogs: true })
  })

  it("toolgate's own switches", () => {
    expect(readTelemetryConfig({ TOOLGATE_OTEL_CAPTURE_ARGUMENTS: '1', TOOLGATE_METRICS_LOOPBACK: 'true', TOOLGATE_LOG_FORMAT: 'JSON' }))
      .toMatchObject({ captureArguments: true, metricsLoopback: true, jsonLogs: true })
  })
})
