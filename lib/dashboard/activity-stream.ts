import 'server-only'
import type { Db } from '@/db/client'
import { activitySince, latestActivityId } from '@/db/queries/activity'
import { presentRecords } from '@/lib/activity/present-records'
import { isValidSession, type SessionCredentials } from '@/lib/auth/operator-sessions'
import { describeError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { recordFilter } from './activity'
import type { ActivityFilter } from '@/lib/schemas/activity'

/**
 * The Activity page's live feed, in Server-Sent Events framing over a plain fetch (the page
 * reads it with fetch, which carries the session key; EventSource cannot send a header). Records arrive from every process that
 * shares the database (the CLI writes directly), so the feed reads the database rather than
 * hooking this process's append path: one timer per process reads the newest id while any
 * stream is open, and each stream sends its matching records after its cursor, oldest first.
 */

/** How often the newest id is read while a stream is open: new records reach the page within this. */
const TICK_MS = 250
/** Open streams per process; more answer 503 (a tab reconnects later). */
export const MAX_STREAMS = 32
/** A stream ends after this (an `end` event): the page opens a new one, authenticated again. */
const LIFETIME_MS = 5 * 60_000
const BATCH = 500
const KEEPALIVE_MS = 15_000

type Listener = (newest: number) => void
const listeners = new Set<Listener>()
let ticker: ReturnType<typeof setInterval> | undefined
let open = 0

function watch(db: Db, listener: Listener): () => void {
  listeners.add(listener)
  ticker ??= setInterval(() => {
    let newest: number
    try {
      newest = latestActivityId(db)
    } catch (e) {
      logError(`toolgate: live activity could not read the log (retried shortly): ${describeError(e)}`)
      return
    }
    for (const l of listeners) l(newest)
  }, TICK_MS)
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0 && ticker) {
      clearInterval(ticker)
      ticker = undefined
    }
  }
}

export interface StreamRequest {
  db: Db
  filter: ActivityFilter
  /** the last record the client has: everything after it is sent, however many arrived at once */
  after: number
  /** the session's cookie and key: checked again before records are sent, so a sign-out ends the feed */
  session: SessionCredentials
  /** aborted when the client goes away */
  signal: AbortSignal
}

/**
 * A response streaming `records` events (a JSON array each) and a final `end` when its lifetime
 * is up; null at MAX_STREAMS.
 */
export function activityStream({ db, filter, after, session, signal }: StreamRequest): Response | null {
  if (open >= MAX_STREAMS) return null
  open++
  const encoder = new TextEncoder()
  const records = recordFilter(filter)
  const range = { from: filter.from, to: filter.to }
  let cursor = after
  let end = () => {}
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let ended = false
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text))
        } catch {
          end() // the client went away between ticks
        }
      }
      const pump = (newest: number) => {
        if (newest <= cursor) return
        try {
          if (!isValidSession(db, session)) return end()
          const rows = activitySince(db, records, range, cursor, newest, BATCH)
          if (rows.length) send(`event: records\ndata: ${JSON.stringify(presentRecords(db, rows))}\n\n`)
          // a full batch leaves more to send on the next tick; otherwise nothing up to `newest` matched but these
          cursor = rows.length === BATCH ? rows[rows.length - 1].id : newest
        } catch (e) {
          logError(`toolgate: a live activity stream failed (the page reconnects): ${describeError(e)}`)
          end()
        }
      }
      const unwatch = watch(db, pump)
      const lifetime = setTimeout(() => {
        send('event: end\ndata: lifetime\n\n')
        end()
      }, LIFETIME_MS)
      // a comment now and then: proxies keep the connection, and a vanished client is noticed
      const keepAlive = setInterval(() => {
        try {
          if (isValidSession(db, session)) send(': keep-alive\n\n')
          else end()
        } catch {
          end() // the session could not be read: the reconnect authenticates afresh
        }
      }, KEEPALIVE_MS)
      end = () => {
        if (ended) return
        ended = true
        open--
        unwatch()
        clearTimeout(lifetime)
        clearInterval(keepAlive)
        signal.removeEventListener('abort', end)
        try {
          controller.close()
        } catch { /* the client already went away */ }
      }
      signal.addEventListener('abort', end)
      if (signal.aborted) return end()
      send(': open\n\n') // a first byte: the page knows at once that the stream is open
    },
    cancel() {
      end()
    },
  })
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      // no-transform: compression must not hold events back
      'cache-control': 'no-store, no-transform',
      'x-accel-buffering': 'no',
    },
  })
}
