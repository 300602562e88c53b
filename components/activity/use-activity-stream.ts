'use client'

import { useEffect, useRef, useState } from 'react'
import type { ActivityItem } from '@/lib/activity/present'

export type StreamStatus = 'off' | 'connecting' | 'live' | 'reconnecting' | 'signed-out'

const RECONNECT_MS = 5_000

/**
 * Follow the records after `after` that match `filters` (a query string without "?"), pushed by
 * /api/dashboard/activity/stream; `onRecords` gets each batch, oldest first. A stream that ends
 * is opened again from the last record received; a dropped one the browser retries itself
 * (Last-Event-ID); one the server refused is retried shortly — unless the session ended, which is
 * said instead.
 */
export function useActivityStream(filters: string | null, after: number, onRecords: (items: ActivityItem[]) => void): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>(filters === null ? 'off' : 'connecting')
  const deliver = useRef(onRecords)
  useEffect(() => { deliver.current = onRecords })

  useEffect(() => {
    if (filters === null) return
    let last = after
    let source: EventSource | null = null
    let retry: ReturnType<typeof setTimeout> | undefined
    let gone = false
    const connect = () => {
      const q = new URLSearchParams(filters)
      q.set('after', String(last))
      source = new EventSource(`/api/dashboard/activity/stream?${q}`)
      source.onopen = () => setStatus('live')
      source.addEventListener('records', (e) => {
        const items = (JSON.parse((e as MessageEvent<string>).data) as ActivityItem[]).filter((i) => i.id > last)
        if (!items.length) return
        last = items[items.length - 1].id
        deliver.current(items)
      })
      // the server's lifetime is up: a fresh stream, authenticated again, from the last record
      source.addEventListener('end', () => {
        source?.close()
        connect()
      })
      source.onerror = () => {
        setStatus('reconnecting')
        if (source?.readyState !== EventSource.CLOSED) return // the browser reconnects by itself
        // refused (401, 503…): say so if the session ended, otherwise try again from the last record
        fetch('/api/dashboard/session', { cache: 'no-store' })
          .then((r) => r.status === 401)
          .catch(() => false)
          .then((signedOut) => {
            if (gone) return
            if (signedOut) setStatus('signed-out')
            else retry = setTimeout(connect, RECONNECT_MS)
          })
      }
    }
    connect()
    return () => {
      gone = true
      source?.close()
      clearTimeout(retry)
    }
  }, [filters, after])

  return status
}
