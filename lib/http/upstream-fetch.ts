/**
 * The process's own fetch, as it was before Next.js patched the global one (it does so when the
 * app is prepared). Upstream traffic — the runtime's connections and OAuth discovery, registration
 * and token requests — uses this one: inside a Next.js request the patched fetch can leave a
 * response body that is cancelled unsettled, which hung logins whose discovery probes met a 404.
 */
const KEY = Symbol.for('toolgate.upstreamFetch')
type WithFetch = typeof globalThis & { [KEY]?: typeof fetch }

/** Call once at startup, before Next.js is prepared. */
export function keepUnpatchedFetch(): void {
  const g = globalThis as WithFetch
  g[KEY] ??= globalThis.fetch
}

export const upstreamFetch: typeof fetch = (input, init) => ((globalThis as WithFetch)[KEY] ?? globalThis.fetch)(input, init)
