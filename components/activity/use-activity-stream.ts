'use client'

import { useEffect, useRef, useState } from 'react'
import type { ActivityItem } from '@/lib/activity/present'

export type StreamStatus = 'off' | 'connecting' | 'live' | 'reconnecting' | 'signed-out'

/** A stream that dropped is opened again after this; one the server refused (503…) after REFUSED_MS. */
const DROPPED_MS = 2_000
const REFUSED_MS = 5_000

interface StreamEvent { event: string; data: string }

/** The events of a Server-Sent Events body, as they arrive (comments skipped). */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (e: StreamEvent) => void): Promise<void> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n')
      buffer = buffer.slice(end + 2)
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2)
      const event = field('event')
      if (event) onEvent({ event, data: field('data') ?? '' })
    }
  }
}

/**
 * Follow the records after `after` that match `filters` (a query string without "?"), pushed by
 * /api/dashboard/activity/stream; `onRecords` gets each batch, oldest first. It is read with
 * fetch (which carries the session key; EventSource cannot send a header). A stream that ends
 * is opened again from the last record received; one that dropped or was refused is retried
 * shortly — unless the session ended (401), which is said instead.
 */
export function useActivityStream(filters: string | null, after: number, onRecords: (items: ActivityItem[]) => void): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>(filters === null ? 'off' : 'connecting')
  const deliver = useRef(onRecords)
  useEffect(() => { deliver.current = onRecords })

  useEffect(() => {
    if (filters === null) return
    let last = after
    let retry: ReturnType<typeof setTimeout> | undefined
    const gone = new AbortController()
    const again = (ms: number) => {
      if (gone.signal.aborted) return
      setStatus('reconnecting')
      retry = setTimeout(connect, ms)
    }
    const connect = async () => {
      const q = new URLSearchParams(filters)
      q.set('after', String(last))
      let ended = false
      try {
        const res = await fetch(`/api/dashboard/activity/stream?${q}`, { cache: 'no-store', signal: gone.signal })
        if (res.status === 401) return setStatus('signed-out')
        if (!res.ok || !res.body) return again(REFUSED_MS)
        setStatus('live')
        await readEvents(res.body, ({ event, data }) => {
          if (event === 'end') ended = true // the server's lifetime is up
          if (event !== 'records') return
          const items = (JSON.parse(data) as ActivityItem[]).filter((i) => i.id > last)
          if (!items.length) return
          last = items[items.length - 1].id
          deliver.current(items)
        })
      } catch {
        // dropped (or this page went away: `again` does nothing then)
      }
      // a fresh stream, authenticated again, from the last record
      if (ended && !gone.signal.aborted) void connect()
      else again(DROPPED_MS)
    }
    void connect()
    return () => {
      gone.abort()
      clearTimeout(retry)
    }
  }, [filters, after])

  return status
}
