import { metrics, type Counter, type Histogram } from '@opentelemetry/api'
import type { Db } from '@/db/client'
import { connectionStates } from '@/db/schema'
import { pendingHeldCalls, toolsAwaitingApproval } from '@/db/queries/telemetry'
import { serverStates } from '@/db/queries/servers'
import pkg from '@/package.json'
import { MCP_DURATION_BUCKETS, METRIC, TOOLGATE } from './names'

export interface Instruments {
  serverDuration: Histogram
  clientDuration: Histogram
  checks: Counter
  activityBatchSize: Histogram
  activityCommitDuration: Histogram
  activityPruned: Counter
}

/**
 * The instruments, made once the SDK's meter provider is registered (the API's meters made
 * before that would stay no-ops), and the gauges read from the database at each collection.
 */
export function makeInstruments(db: Db): Instruments {
  const meter = metrics.getMeter('toolgate', pkg.version)
  const duration = (name: string, description: string) => meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: MCP_DURATION_BUCKETS } })
  const instruments: Instruments = {
    serverDuration: duration(METRIC.SERVER_DURATION, 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.'),
    clientDuration: duration(METRIC.CLIENT_DURATION, 'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.'),
    checks: meter.createCounter(METRIC.CHECKS, { unit: '{check}', description: 'Checks answered (preflight on every surface, and the gate of each tools/call), by verdict and surface.' }),
    activityBatchSize: meter.createHistogram(METRIC.ACTIVITY_BATCH_SIZE, { unit: '{record}', description: 'Activity records committed together in one group commit.', advice: { explicitBucketBoundaries: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512] } }),
    activityCommitDuration: meter.createHistogram(METRIC.ACTIVITY_COMMIT_DURATION, { unit: 's', description: 'Time to commit one group of activity records (waiting for the write lock included).', advice: { explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] } }),
    activityPruned: meter.createCounter(METRIC.ACTIVITY_PRUNED, { unit: '{row}', description: 'Rows deleted by retention pruning: activity records, and held calls with their arguments and results.' }),
  }
  // a counter reads 0 from the start, not absent until the first daily prune
  for (const what of ['activity', 'held_calls']) instruments.activityPruned.add(0, { [TOOLGATE.PRUNED]: what })
  meter.createObservableGauge(METRIC.HELD_CALLS_PENDING, { unit: '{call}', description: 'Held calls waiting for an operator\'s decision.' })
    .addCallback((r) => r.observe(pendingHeldCalls(db)))
  meter.createObservableGauge(METRIC.TOOLS_AWAITING_APPROVAL, { unit: '{tool}', description: 'Tools waiting for an operator\'s approval: new (pending) or with a changed definition.' })
    .addCallback((r) => {
      const n = toolsAwaitingApproval(db)
      r.observe(n.pending, { [TOOLGATE.APPROVAL_STATUS]: 'pending' })
      r.observe(n.changed, { [TOOLGATE.APPROVAL_STATUS]: 'changed' })
    })
  // one series per server and state, 1 for the state it is in: a graph of states needs no join
  meter.createObservableGauge(METRIC.UPSTREAM_STATE, { unit: '1', description: 'Each upstream server\'s connection state as every surface believes it: 1 for its state, 0 for the others.' })
    .addCallback((r) => {
      for (const s of serverStates(db)) {
        for (const state of connectionStates) r.observe(s.connection?.state === state ? 1 : 0, { [TOOLGATE.SERVER]: s.name, [TOOLGATE.STATE]: state })
      }
    })
  return instruments
}
