import 'server-only'
import type { Db } from '@/db/client'
import { readSettings } from '@/db/queries/settings'
import { keptRead } from '@/db/queries/preflight-state'
import { LimitedError } from '@/lib/core/errors'
import type { Caller } from '@/lib/preflight/evaluate'

/**
 * Per-agent limits (settings agent_requests_per_second and agent_recorded_mib_per_hour), so
 * one agent token can neither flood toolgate with requests nor fill the disk with records.
 * Every agent caller (a token, or the anonymous profile's one identity) has its own budget, kept
 * in this process's memory: the process that answers agents is the one that records them, and
 * a restart starts every budget afresh. The operator is never limited.
 */

const SECOND = 1_000
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const MIB = 1024 * 1024

interface Budget {
  /** requests left in this second's bucket (it refills continuously, up to one second's worth) */
  tokens: number
  refilledAt: number
  /** bytes recorded per minute over the last hour, oldest first, and their sum */
  minutes: { start: number; bytes: number }[]
  bytes: number
}
const budgets = new Map<string, Budget>()

interface Limits { perSecond: number | null; bytesPerHour: number | null }

/** The limits as set now: kept while nothing served can have changed (keptRead), so a change applies to the next request. */
const limitsOf = (db: Db): Limits => keptRead(db, 'limits', () => {
  const s = readSettings(db)
  return { perSecond: s.agentRequestsPerSecond, bytesPerHour: s.agentRecordedMibPerHour === null ? null : s.agentRecordedMibPerHour * MIB }
})

/** Minutes that have left the hour no longer count. */
function forget(b: Budget, now: number): void {
  while (b.minutes.length && b.minutes[0].start + MINUTE <= now - HOUR) b.bytes -= b.minutes.shift()!.bytes
}

const inWords = (seconds: number) => (seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`)

/**
 * Let one request of `caller` in, or refuse it with a LimitedError that names the limit, the
 * setting and when to retry. Nothing of a refused request is evaluated or recorded.
 */
export function admit(db: Db, caller: Caller, now = Date.now()): void {
  if (caller.tier !== 'agent') return
  const { perSecond, bytesPerHour } = limitsOf(db)
  let b = budgets.get(caller.name)
  if (!b) budgets.set(caller.name, (b = { tokens: perSecond ?? 0, refilledAt: now, minutes: [], bytes: 0 }))
  if (bytesPerHour !== null) {
    forget(b, now)
    if (b.bytes >= bytesPerHour) {
      // back under the limit once enough of the oldest minutes have left the hour
      let left = b.bytes
      const freed = b.minutes.find((m) => (left -= m.bytes) < bytesPerHour)!
      const seconds = Math.max(1, Math.ceil((freed.start + MINUTE + HOUR - now) / SECOND))
      throw new LimitedError(`volume limit: ${caller.name} has had ${Math.floor(b.bytes / MIB)} MiB of activity recorded in the last hour, `
        + `the most an agent may (setting agent_recorded_mib_per_hour = ${bytesPerHour / MIB}); retry in ${inWords(seconds)}`, seconds)
    }
  }
  if (perSecond !== null) {
    b.tokens = Math.min(perSecond, b.tokens + ((now - b.refilledAt) / SECOND) * perSecond)
    b.refilledAt = now
    if (b.tokens < 1) {
      const seconds = Math.max(1, Math.ceil((1 - b.tokens) / perSecond))
      throw new LimitedError(`rate limit: ${caller.name} made more than ${perSecond} requests in a second, the most an agent may `
        + `(setting agent_requests_per_second); retry in ${inWords(seconds)}`, seconds)
    }
    b.tokens -= 1
  }
}

/**
 * Count `bytes` recorded for `actor` against its volume limit. Only callers admitted above have
 * a budget: the operator, the runtime and other processes (the CLI) count for nothing.
 */
export function meterRecorded(actor: string, bytes: number, now = Date.now()): void {
  const b = budgets.get(actor)
  if (!b) return
  const start = now - (now % MINUTE)
  const last = b.minutes.at(-1)
  if (last?.start === start) last.bytes += bytes
  else b.minutes.push({ start, bytes })
  b.bytes += bytes
}
