import type { Health, ServerRow } from '@/lib/catalog/servers'
import { Pill, type Tone } from '@/components/ui'

const healthTone: Record<Health, Tone> = { ready: 'good', starting: 'warn', login_needed: 'bad', unhealthy: 'bad', unpublished: 'muted', no_transport: 'bad' }
const healthLabel: Record<Health, string> = { ready: 'connected', starting: 'starting', login_needed: 'login needed', unhealthy: 'unhealthy', unpublished: 'no state yet', no_transport: 'nothing to call (no transport)' }

/** What its served tools' calls meet while the connection is not ready (a tool can be served, in the listing, and still not callable now). */
export const callsWhile: Record<Health, string | null> = {
  ready: null, starting: 'calls wait until it is connected', login_needed: 'calls wait for a login', unhealthy: 'calls fail while it is unhealthy',
  unpublished: 'calls wait until the runtime reports it', no_transport: 'nothing to call',
}

/** What the operator set: enabled, quarantined, trust. */
export function AdminState({ s }: { s: Pick<ServerRow, 'enabled' | 'quarantined' | 'trust'> }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      <Pill tone={s.enabled ? 'good' : 'bad'}>{s.enabled ? 'enabled' : 'disabled'}</Pill>
      {s.quarantined && <Pill tone="bad">quarantined</Pill>}
      <Pill tone={s.trust === 'auto' ? 'warn' : 'muted'} title={s.trust === 'auto' ? 'approval gate off for this server' : 'tools need approval'}>trust: {s.trust}</Pill>
    </span>
  )
}

/**
 * What the runtime sees: the connection's health and its note. A quarantined or disabled server
 * is not connected, whatever its last published state says: the runtime does not run it.
 */
export function HealthState({ s }: { s: Pick<ServerRow, 'health' | 'connection' | 'quarantined' | 'enabled'> }) {
  if (s.quarantined || !s.enabled) {
    return <Pill tone="muted" title="the runtime does not connect it until it is released / enabled">not connected ({s.quarantined ? 'quarantined' : 'disabled'})</Pill>
  }
  return (
    <span className="inline-flex flex-col items-start gap-0.5">
      <Pill tone={healthTone[s.health]} title={s.connection?.state ?? 'the runtime has not published a state'}>{healthLabel[s.health]}</Pill>
      {s.connection?.detail && <span className="text-xs text-slate-600 dark:text-slate-300">{s.connection.detail}</span>}
    </span>
  )
}
