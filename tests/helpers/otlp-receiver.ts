import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { IExportTraceServiceRequest, ISpan } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types'
import type { IAnyValue, IKeyValue } from '@opentelemetry/otlp-transformer/build/src/common/internal-types'

/** A received span, its ids as hex and its attributes as plain values. */
export interface ReceivedSpan { span: ISpan; traceId: string; spanId: string; parentSpanId: string | undefined; attrs: Record<string, unknown>; service: unknown }

const valueOf = (v: IAnyValue | undefined): unknown =>
  v?.stringValue ?? v?.boolValue ?? (v?.intValue !== undefined && v.intValue !== null ? Number(v.intValue) : undefined) ?? v?.doubleValue ?? undefined
const attributes = (kvs: IKeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]))
const hex = (id: string | Uint8Array | undefined) => (id === undefined || id === '' ? undefined : typeof id === 'string' ? id : Buffer.from(id).toString('hex'))

/**
 * A real OTLP/HTTP receiver (protocol http/json) on a loopback port: it takes what an exporter
 * sends to /v1/traces, decoded as the OpenTelemetry packages type it, and answers as a collector.
 */
export async function startOtlpReceiver(): Promise<{ url: string; spans: () => ReceivedSpan[]; close: () => Promise<void> }> {
  const received: ReceivedSpan[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as IExportTraceServiceRequest
        for (const rs of body.resourceSpans ?? []) {
          const service = attributes(rs.resource?.attributes)['service.name']
          for (const ss of rs.scopeSpans) for (const span of ss.spans ?? []) {
            received.push({ span, traceId: hex(span.traceId)!, spanId: hex(span.spanId)!, parentSpanId: hex(span.parentSpanId), attrs: attributes(span.attributes), service })
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, spans: () => [...received], close: () => new Promise((r) => server.close(() => r())) }
}
