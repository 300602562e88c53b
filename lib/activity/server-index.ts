import 'server-only'
import type { Db } from '@/db/client'
import { indexActivityServers } from '@/db/queries/activity-index'
import { describeError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { reasonVerdicts } from '@/lib/preflight/taxonomy'

export const INDEX_EVERY_MS = 250

/**
 * Keep the server filter's index (db/queries/activity-index.ts) caught up from the server
 * process: at start, then every INDEX_EVERY_MS, in batches that yield between them.
 */
export function startServerIndex(db: Db): { stop: () => void } {
  let running = false
  const run = async () => {
    if (running) return
    running = true
    try {
      while (await indexActivityServers(db, reasonVerdicts)) await new Promise((r) => setImmediate(r))
    } catch (e) {
      logError(`toolgate: indexing activity by server (retried shortly): ${describeError(e)}`)
    } finally {
      running = false
    }
  }
  void run()
  const timer = setInterval(() => void run(), INDEX_EVERY_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
