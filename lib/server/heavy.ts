import 'server-only'
import { Worker } from 'node:worker_threads'
import { setHeavyRunner, type HeavyAnswer, type HeavyJob } from '@/lib/dashboard/heavy'

type Pending = { resolve: (v: HeavyAnswer) => void; reject: (e: Error) => void }

/**
 * The dashboard's heavy jobs in one worker thread beside the server (lib/dashboard/heavy.ts says
 * which and why). Started on the first job; the same job asked again while it runs shares the
 * answer; a worker that dies fails what it held and the next job starts a new one.
 */
export function startHeavyWorker(): { stop: () => Promise<void> } {
  let worker: Worker | undefined
  let next = 0
  const pending = new Map<number, Pending>()
  const inFlight = new Map<string, Promise<HeavyAnswer>>()
  const fail = (e: Error) => {
    for (const p of pending.values()) p.reject(e)
    pending.clear()
    worker = undefined
  }
  const started = () => {
    if (worker) return worker
    // bin/toolgate.mjs bundles the worker's entry beside this one
    const w = new Worker(new URL('./heavy-worker.js', import.meta.url))
    w.unref()
    w.on('message', ({ id, ...answer }: { id: number } & HeavyAnswer) => {
      const p = pending.get(id)
      pending.delete(id)
      p?.resolve(answer)
    })
    w.on('error', fail)
    w.on('exit', (code) => { if (worker === w) fail(new Error(`the dashboard's worker thread exited (${code})`)) })
    return (worker = w)
  }
  const run = (job: HeavyJob): Promise<HeavyAnswer> => {
    const key = JSON.stringify(job)
    let p = inFlight.get(key)
    if (!p) {
      const id = next++
      p = new Promise<HeavyAnswer>((resolve, reject) => {
        pending.set(id, { resolve, reject })
        started().postMessage({ id, job })
      }).finally(() => inFlight.delete(key))
      inFlight.set(key, p)
    }
    return p
  }
  setHeavyRunner(run)
  return {
    stop: async () => {
      setHeavyRunner(undefined)
      const w = worker
      worker = undefined
      await w?.terminate()
    },
  }
}
