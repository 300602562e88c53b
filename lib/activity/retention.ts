import 'server-only'
import { statSync } from 'node:fs'
import { activityExtent, deleteOldest } from '@/db/queries/activity'
import { storeFile, type Db, type Tx } from '@/db/client'
import { writeRecords } from '@/db/write'
import { readSettings } from '@/db/queries/settings'
import { deleteOldCalls } from '@/db/queries/calls'
import { describeError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { notePruned } from '@/lib/telemetry/notes'
import { reasonVerdicts } from '@/lib/preflight/taxonomy'
import { appendActivity } from './record'
import { mintRequestId } from './request-id'

const DAY_MS = 24 * 60 * 60 * 1000
/** Rows deleted per transaction: small, so a prune never holds the write lock for long. */
export const PRUNE_BATCH = 500

/** The instant before which records go, under the retention setting; null = keep everything. */
export function retentionCutoff(db: Db, now = Date.now()): number | null {
  const days = readSettings(db).activityRetentionDays
  return days === null ? null : now - days * DAY_MS
}

/** Run `deleteBatch` until it deletes fewer than PRUNE_BATCH, yielding to the event loop between batches; how many went. */
async function inBatches(db: Db, deleteBatch: (tx: Tx) => number, onBatch?: (deleted: number) => void): Promise<number> {
  let total = 0
  for (;;) {
    const n = await writeRecords(db, deleteBatch)
    total += n
    onBatch?.(total)
    if (n < PRUNE_BATCH) return total
    await new Promise((r) => setImmediate(r))
  }
}

/**
 * Delete records older than `before`, and the held calls (with their arguments and results) that
 * were over by then, PRUNE_BATCH rows per transaction, yielding to the event loop between batches
 * so checks keep being answered (and recorded) while it runs. The prune itself is on the record
 * (`activity.pruned`, under `requestId` when given) when it deleted anything. Returns the records deleted.
 */
export async function pruneActivity(db: Db, before: number, actor: string, onBatch?: (deleted: number) => void, requestId = mintRequestId()): Promise<number> {
  const total = await inBatches(db, (tx) => deleteOldest(tx, reasonVerdicts, before, PRUNE_BATCH), onBatch)
  const heldCalls = await inBatches(db, (tx) => deleteOldCalls(tx, before, PRUNE_BATCH))
  notePruned(total, heldCalls)
  if (total > 0 || heldCalls > 0) {
    await appendActivity(db, { requestId, type: 'activity.pruned', actor, data: { before: new Date(before).toISOString(), deleted: total, ...(heldCalls ? { held_calls: heldCalls } : {}) } })
  }
  return total
}

/** The oldest record kept, and the database's size on disk (file + write-ahead log). */
export function activityStorage(db: Db): { oldestAt: number | null; records: number; dbBytes: number; walBytes: number } {
  const { oldestAt, records } = activityExtent(db)
  const size = (f: string) => { try { return statSync(f).size } catch { return 0 } }
  const file = storeFile(db)
  return { oldestAt, records, dbBytes: size(file), walBytes: size(`${file}-wal`) }
}

/** Prune by the retention setting at start and then daily, in the background. */
export function startRetention(db: Db, everyMs = DAY_MS): { stop: () => void } {
  const run = () => {
    const cutoff = retentionCutoff(db)
    if (cutoff === null) return
    pruneActivity(db, cutoff, 'runtime').catch((e: unknown) => logError(`toolgate: activity pruning failed (retried on the next run): ${describeError(e)}`))
  }
  const first = setTimeout(run, 1_000)
  const timer = setInterval(run, everyMs)
  first.unref()
  timer.unref()
  return { stop: () => { clearTimeout(first); clearInterval(timer) } }
}
