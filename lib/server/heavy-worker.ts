// The worker thread of lib/server/heavy.ts: its own connection to the same database (WAL lets it
// read beside the server's writes), one job at a time, answers kept per state fingerprint.
import { parentPort } from 'node:worker_threads'
import { getDb } from '@/db/client'
import { surfaceFingerprint } from '@/db/queries/surface-fingerprint'
import { failureOf, runHeavy, type HeavyJob } from '@/lib/dashboard/heavy'
import { keepServedLists } from '@/lib/surface/report'

// a few scopes' pages and the reviews an operator opens: bounded, oldest out first
const KEPT = 64
const kept = new Map<string, { fingerprint: string; result: unknown }>()

parentPort!.on('message', ({ id, job }: { id: number; job: HeavyJob }) => {
  try {
    const db = getDb()
    const fingerprint = surfaceFingerprint(db)
    const key = JSON.stringify(job)
    let hit = kept.get(key)
    if (hit?.fingerprint !== fingerprint) {
      keepServedLists(db, fingerprint) // the jobs of one state share its scopes' lists
      hit = { fingerprint, result: runHeavy(db, job) }
      kept.delete(key)
      kept.set(key, hit)
      if (kept.size > KEPT) kept.delete(kept.keys().next().value!)
    }
    parentPort!.postMessage({ id, result: hit.result })
  } catch (e) {
    parentPort!.postMessage({ id, failure: failureOf(e) })
  }
})
