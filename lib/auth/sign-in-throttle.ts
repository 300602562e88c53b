/**
 * Failed dashboard sign-ins, per key — `address:<socket address>` and `account:<login>` — in
 * this process: after MAX_FAILURES within WINDOW_MS the key must wait until the window that
 * began with its first failure has passed — no key or password is even looked at meanwhile, so
 * guessing costs a window per few guesses, whether from one address or at one account from
 * many. A successful sign-in forgets its keys' failures.
 */
export const MAX_FAILURES = 5
export const WINDOW_MS = 5 * 60_000
/** Keys remembered at most; the oldest are forgotten first (a flood of addresses cannot grow memory). */
const MAX_ADDRESSES = 10_000

const failures = new Map<string, { count: number; since: number }>()

const current = (address: string, now: number) => {
  const f = failures.get(address)
  if (f && now - f.since >= WINDOW_MS) failures.delete(address)
  return f && now - f.since < WINDOW_MS ? f : undefined
}

/** Until when `address` must wait before another attempt, or null if it may try now. */
export function signInBlockedUntil(address: string, now = Date.now()): number | null {
  const f = current(address, now)
  return f && f.count >= MAX_FAILURES ? f.since + WINDOW_MS : null
}

/** Count a failure; returns until when the address now waits, when this failure was its last allowed one. */
export function noteFailedSignIn(address: string, now = Date.now()): number | null {
  const f = current(address, now) ?? { count: 0, since: now }
  f.count++
  failures.delete(address) // re-inserted: the Map keeps the most recent last
  failures.set(address, f)
  if (failures.size > MAX_ADDRESSES) failures.delete(failures.keys().next().value!)
  return f.count >= MAX_FAILURES ? f.since + WINDOW_MS : null
}

export function forgetFailedSignIns(address: string): void {
  failures.delete(address)
}
