'use client'

import { useQuery } from '@tanstack/react-query'
import { usePathname, useRouter } from 'next/navigation'
import { useEffect, useRef, useSyncExternalStore } from 'react'
import { Button } from '@/components/ui'

const POLL_MS = 2000
const PREFIX = /^\(\d+ held\) /

interface Held { pending: number; newest: { id: string; tool: string }[] }

/** Calls waiting for an operator, polled on every page (one indexed count, and the newest few by id). */
function useHeld(): Held | undefined {
  return useQuery({
    queryKey: ['held'],
    queryFn: async () => {
      const res = await fetch('/api/dashboard/held', { cache: 'no-store' })
      if (!res.ok) throw new Error(`held calls answered ${res.status}`)
      return await res.json() as Held
    },
    refetchInterval: POLL_MS,
  }).data
}

// The operator's choice, kept in this browser: the permission alone is the site's, and cannot be
// taken back from the page.
const OPT_IN = 'toolgate.notify-held'
const CHANGED = 'toolgate:notify-held'

type NotifyState = 'unsupported' | 'denied' | 'on' | 'off'

function notifyState(): NotifyState {
  if (typeof Notification === 'undefined') return 'unsupported'
  if (Notification.permission === 'denied') return 'denied'
  return Notification.permission === 'granted' && localStorage.getItem(OPT_IN) === '1' ? 'on' : 'off'
}

function onNotifyChange(changed: () => void) {
  window.addEventListener('storage', changed)
  window.addEventListener(CHANGED, changed)
  return () => { window.removeEventListener('storage', changed); window.removeEventListener(CHANGED, changed) }
}

// 'unsupported' on the server: the button appears once the browser says it can notify
const useNotifyState = () => useSyncExternalStore(onNotifyChange, notifyState, () => 'unsupported' as const)

function setOptIn(on: boolean) {
  if (on) localStorage.setItem(OPT_IN, '1')
  else localStorage.removeItem(OPT_IN)
  window.dispatchEvent(new Event(CHANGED))
}

/**
 * A notification for each call newly held, while the operator wants them: calls held when the
 * page opened, or while notifications were off, count as seen. Clicking one brings this tab to
 * the call on Approvals.
 */
function useHeldNotifications(newest: Held['newest'] | undefined) {
  const on = useNotifyState() === 'on'
  const seen = useRef<Set<string> | null>(null)
  const router = useRouter()
  useEffect(() => {
    if (!newest) return
    const fresh = seen.current ? newest.filter((c) => !seen.current!.has(c.id)) : []
    seen.current = new Set([...(seen.current ?? []), ...newest.map((c) => c.id)])
    if (!on) return
    for (const c of fresh) {
      try {
        // tagged by call: another toolgate tab's notification of the same call replaces this one
        const n = new Notification('A call is held for your approval', { body: `${c.tool} (call ${c.id}) waits for an operator.`, tag: c.id })
        n.onclick = () => { window.focus(); router.push(`/approvals#call-${encodeURIComponent(c.id)}`); n.close() }
      } catch {
        // a browser that notifies only from a service worker (Chrome on Android): the badge and title still say it
      }
    }
  }, [newest, on, router])
}

/** Turns held-call notifications on (asking the browser's permission) or off; absent where the browser cannot notify or was told not to. */
export function NotifyHeldButton() {
  const state = useNotifyState()
  if (state === 'unsupported' || state === 'denied') return null
  return state === 'on'
    ? <Button onClick={() => setOptIn(false)}>Stop notifying me of held calls</Button>
    : <Button onClick={async () => setOptIn(await Notification.requestPermission() === 'granted')}>Notify me of held calls</Button>
}

/**
 * The Approvals link's badge, and the tab's title ("(2 held) Overview · toolgate"), so a held
 * call is seen from any page and from another tab; and the held-call notifications. Next.js sets
 * the title on every navigation: it is set again after each one and each poll.
 */
export function HeldBadge() {
  const data = useHeld()
  const held = data?.pending ?? 0
  const path = usePathname()
  useHeldNotifications(data?.newest)
  useEffect(() => {
    const base = document.title.replace(PREFIX, '')
    document.title = held > 0 ? `(${held} held) ${base}` : base
  }, [held, path])
  if (held === 0) return null
  return <span data-testid="held-badge" aria-label={`${held} held call${held === 1 ? '' : 's'} waiting`} className="ml-1.5 rounded-full bg-amber-500 px-1.5 py-0.5 text-xs font-semibold text-slate-950">{held}</span>
}
