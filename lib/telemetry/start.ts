import type { Db } from '@/db/client'
import { writeJsonLogs } from '@/lib/core/log'
import { telemetryConfig } from './config'
import { currentRequestId, currentTraceIds } from './context'

/**
 * Start what the environment asks for (lib/telemetry/config.ts) and return how to stop it,
 * exporting what is buffered. While everything is off, the SDK is not even loaded.
 */
export async function startTelemetry(db: Db): Promise<() => Promise<void>> {
  const config = telemetryConfig()
  if (!config.traces && !config.otlpMetrics && !config.prometheus && !config.jsonLogs) return async () => undefined
  const { startSdk } = await import('./sdk')
  const stop = await startSdk(db, config)
  if (config.jsonLogs) writeJsonLogs(() => ({ request_id: currentRequestId(), ...currentTraceIds() }))
  return stop
}
