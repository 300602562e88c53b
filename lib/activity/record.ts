import 'server-only'
import type { Db, DbLike } from '@/db/client'
import type { ActivityRow } from '@/db/schema'
import { insertActivityRow, newestActivityHash } from '@/db/queries/activity'
import { writeRecords } from '@/db/write'
import { meterRecorded } from '@/lib/limits/budgets'
import { commitClock, noteActivityCommit } from '@/lib/telemetry/notes'
import { CHAIN_GENESIS, chainHash } from '@/lib/core/activity-chain'
import type { ActivityDataByType, ActivityType, Surface } from '@/lib/core/activity'

/** One record to write; its data must have its type's shape (lib/core/activity.ts). */
export type ActivityInput = {
  [T in ActivityType]: {
    requestId: string
    type: T
    actor: string
    surface?: Surface
    tier?: 'operator' | 'agent'
    verdict?: string
    server?: string
    /** a person's record: their account, and how they were authenticated */
    operatorId?: string
    auth?: string
    data: ActivityDataByType[T]
    at?: number
  }
}[ActivityType]

/** What a record costs on disk besides its data (its other columns and index entries), roughly, for the volume limit. */
const ROW_OVERHEAD = 200

/**
 * Insert one record inside the caller's write transaction, so a change and its record commit
 * together (or neither does), chained to the record before it (lib/core/activity-chain.ts). The server
 * filter's index follows in batches (db/queries/activity-index.ts). An agent's records count
 * against its volume limit (lib/limits).
 */
export function insertActivity(db: DbLike, input: ActivityInput): ActivityRow {
  const row: ActivityRow = {
    id: 0, requestId: input.requestId, at: input.at ?? Date.now(), type: input.type, surface: input.surface ?? null,
    actor: input.actor, tier: input.tier ?? null, verdict: input.verdict ?? null, server: input.server ?? null,
    operatorId: input.operatorId ?? null, auth: input.auth ?? null, data: input.data, prevHash: null, hash: null,
  }
  const data = JSON.stringify(row.data)
  row.prevHash = newestActivityHash(db) ?? CHAIN_GENESIS
  // Object.assign, not a spread with new keys: V8 (Node 20) builds that as a slow object, microseconds a call
  row.hash = chainHash(row.prevHash, Object.assign({}, row, { dataText: data }))
  row.id = insertActivityRow(db, row, data)
  meterRecorded(row.actor, data.length + ROW_OVERHEAD)
  return row
}

interface Pending { input: ActivityInput; resolve: (row: ActivityRow) => void; reject: (e: unknown) => void }
interface Queue { pending: Pending[]; scheduled: boolean; later?: NodeJS.Timeout }
const queues = new WeakMap<Db, Queue>()
/** How long a record nobody waits for may wait for another record's commit before it commits alone. */
const UNAWAITED_MS = 20

/**
 * Append one record on its own, durably, and resolve once it is committed: callers answer only
 * after this resolves, so a verdict never exists without its record (contract §8.4).
 *
 * Group commit: records appended in the same turn of the event loop (and any that arrive while
 * a commit waits for a lock) share one transaction and one fsync. A failed commit rejects every
 * record in it, so each of those answers fails too. A record nobody waits for (`awaited` false:
 * a call's outcome) commits with the next one somebody does, or alone after UNAWAITED_MS.
 */
export function appendActivity(db: Db, input: ActivityInput, awaited = true): Promise<ActivityRow> {
  let q = queues.get(db)
  if (!q) queues.set(db, (q = { pending: [], scheduled: false }))
  const queue = q
  return new Promise((resolve, reject) => {
    queue.pending.push({ input, resolve, reject })
    if (queue.scheduled) return
    if (awaited) {
      clearTimeout(queue.later)
      queue.later = undefined
      queue.scheduled = true
      setImmediate(() => void flush(db, queue))
    } else {
      // a call's outcome (nothing waits for it) rides with the next commit, most often the next
      // call's: one fsync per call instead of two, and none between an answer and the next request
      queue.later ??= setTimeout(() => {
        queue.later = undefined
        if (queue.scheduled) return
        queue.scheduled = true
        void flush(db, queue)
      }, UNAWAITED_MS)
    }
  })
}

/** Writes gathered until the turn of the event loop ends (see sendAtTurnEnd), not sent yet. */
const gathered = new Set<() => void>()

/**
 * Run `send` (a gathered write: a stdio server's corked pipe, lib/upstream/transport.ts) when
 * this turn of the event loop ends, or sooner: before a group commit in it blocks the loop for
 * its fsync, so the server works on what it was sent meanwhile. Only the answer to a call waits
 * for its record, not its forwarding (contract §12).
 */
export function sendAtTurnEnd(send: () => void): void {
  gathered.add(send)
  setImmediate(() => { if (gathered.delete(send)) send() })
}

async function flush(db: Db, queue: Queue): Promise<void> {
  for (const send of gathered) send()
  gathered.clear()
  clearTimeout(queue.later)
  queue.later = undefined
  const batch = queue.pending.splice(0)
  const started = commitClock()
  try {
    const rows = await writeRecords(db, (tx) => batch.map((p) => insertActivity(tx, p.input)))
    noteActivityCommit(batch.length, started)
    batch.forEach((p, i) => p.resolve(rows[i]))
  } catch (e) {
    for (const p of batch) p.reject(e)
  }
  if (queue.pending.length) setImmediate(() => void flush(db, queue))
  else queue.scheduled = false
}

/** Commit whatever is queued, and wait for it: a server stopping leaves no unawaited record behind. */
export async function commitPending(db: Db): Promise<void> {
  const queue = queues.get(db)
  while (queue && (queue.pending.length || queue.scheduled)) {
    if (queue.scheduled) await new Promise((r) => setImmediate(r))
    else {
      queue.scheduled = true
      await flush(db, queue)
    }
  }
}
