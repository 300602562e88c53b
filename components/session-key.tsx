'use client'

import { useRouter } from 'next/navigation'
import { useEffect } from 'react'
import { SESSION_KEY_HEADER } from '@/lib/dashboard/session-cookie'

/**
 * The browser half of a dashboard session: the session key, kept in this origin's localStorage
 * (scheme, host and port: another loopback port cannot read it, though it gets the cookie) and
 * sent as a header with every same-origin fetch. window.fetch is patched once, when this module
 * loads (the root layout mounts it before anything fetches), so server actions, the router's
 * navigations and refreshes, TanStack queries and route-handler calls all carry it.
 */
const STORAGE = 'toolgate.session-key'

function sessionKey(): string | null {
  try {
    return localStorage.getItem(STORAGE)
  } catch {
    return null // storage disabled: the server treats the browser as signed out
  }
}

/** Whether this browser holds a session key: without one, the server answers 401 to anything signed in. */
export const hasSessionKey = () => sessionKey() !== null
export const storeSessionKey = (key: string) => localStorage.setItem(STORAGE, key)
export const clearSessionKey = () => localStorage.removeItem(STORAGE)

const PATCHED = Symbol.for('toolgate.session-key-fetch')

function withSessionKey(original: typeof fetch): typeof fetch {
  return (input, init) => {
    const key = sessionKey()
    if (!key) return original(input, init)
    const url = new URL(input instanceof Request ? input.url : String(input), location.href)
    if (url.origin !== location.origin) return original(input, init) // never to anyone else
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    headers.set(SESSION_KEY_HEADER, key)
    return original(input, { ...init, headers })
  }
}

if (typeof window !== 'undefined' && !(PATCHED in window.fetch)) {
  window.fetch = Object.assign(withSessionKey(window.fetch.bind(window)), { [PATCHED]: true })
}

/** Mounted by the root layout: importing it is what installs the patch. */
export function SessionKeyFetch() {
  return null
}

/**
 * What a browser navigation (a reload, a typed URL) gets: the server answered a data-free shell
 * because a navigation cannot carry the key. With a key, ask again through the patched fetch;
 * without one, sign in.
 */
export function SessionBootstrap() {
  const router = useRouter()
  useEffect(() => {
    if (sessionKey()) router.refresh()
    else router.replace(`/login?next=${encodeURIComponent(location.pathname + location.search)}`)
  }, [router])
  return null
}
